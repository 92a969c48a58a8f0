// Africa. NG: CBN bank codes; ZA: universal branch codes; KE: CBK bank codes. Ghana, Tanzania,
// Uganda and Cameroon have no numeric registry we can cite, so their codes are ours.
// Transcribed from the registries named above (checked 2026-11-23); these have no machine-readable copy in a
// registry we can use, so scripts/refresh-banks.ts leaves them alone: refresh by hand.
import { parseBanks } from './types.ts';

export const NG_BANKS = parseBanks(`
11=First Bank of Nigeria
23=Citibank Nigeria
30=Heritage Bank
32=Union Bank of Nigeria
33=United Bank for Africa (UBA)
35=Wema Bank
44=Access Bank
50=Ecobank Nigeria
57=Zenith Bank
58=Guaranty Trust Bank (GTBank)
68=Standard Chartered Nigeria
70=Fidelity Bank
76=Polaris Bank
82=Keystone Bank
214=First City Monument Bank (FCMB)
215=Unity Bank
221=Stanbic IBTC Bank
232=Sterling Bank
`);

export const ZA_BANKS = parseBanks(`
51001=Standard Bank
198765=Nedbank
250655=First National Bank (FNB)
430000=African Bank
462005=Bidvest Bank
470010=Capitec Bank
580105=Investec
632005=Absa
678910=TymeBank
679000=Discovery Bank
`);

export const KE_BANKS = parseBanks(`
1=Kenya Commercial Bank (KCB)
2=Standard Chartered Kenya
3=Absa Bank Kenya
7=NCBA Bank
11=Co-operative Bank of Kenya
12=National Bank of Kenya
31=Stanbic Bank Kenya
57=I&M Bank
63=Diamond Trust Bank
68=Equity Bank
70=Family Bank
`);

export const GH_BANKS = parseBanks(`
1=GCB Bank
2=Ecobank Ghana
3=Stanbic Bank Ghana
4=Absa Bank Ghana
5=Standard Chartered Ghana
6=Fidelity Bank Ghana
7=CalBank
8=Zenith Bank Ghana
9=Access Bank Ghana
10=Agricultural Development Bank
`);

export const TZ_BANKS = parseBanks(`
1=CRDB Bank
2=NMB Bank
3=National Bank of Commerce (NBC)
4=Stanbic Bank Tanzania
5=Exim Bank Tanzania
6=Equity Bank Tanzania
7=Absa Bank Tanzania
`);

export const UG_BANKS = parseBanks(`
1=Stanbic Bank Uganda
2=Centenary Bank
3=dfcu Bank
4=Absa Bank Uganda
5=Standard Chartered Uganda
6=Equity Bank Uganda
7=Bank of Africa Uganda
`);

export const CM_BANKS = parseBanks(`
1=Afriland First Bank
2=Société Générale Cameroun
3=BICEC
4=Ecobank Cameroun
5=UBA Cameroun
6=SCB Cameroun
7=Crédit Communautaire d'Afrique (CCA Bank)
`);
