// Asia. CN: CNAPS bank-type codes; ID: Bank Indonesia clearing codes; TH: Bank of Thailand
// bank codes; VN: NAPAS BINs. India (IFSC), Malaysia and the Philippines identify banks by
// alphanumeric codes, so the numeric codes there are ours.
// Transcribed from the registries named above (checked 2026-11-23); these have no machine-readable copy in a
// registry we can use, so scripts/refresh-banks.ts leaves them alone: refresh by hand.
import { parseBanks } from './types.ts';

export const CN_BANKS = parseBanks(`
102=Industrial and Commercial Bank of China (ICBC)
103=Agricultural Bank of China
104=Bank of China
105=China Construction Bank
301=Bank of Communications
302=China CITIC Bank
303=China Everbright Bank
305=China Minsheng Bank
306=China Guangfa Bank
308=China Merchants Bank
309=Industrial Bank
310=Shanghai Pudong Development Bank
403=Postal Savings Bank of China
`);

export const ID_BANKS = parseBanks(`
2=Bank Rakyat Indonesia (BRI)
8=Bank Mandiri
9=Bank Negara Indonesia (BNI)
11=Bank Danamon
13=Bank Permata
14=Bank Central Asia (BCA)
16=Maybank Indonesia
19=Panin Bank
22=CIMB Niaga
28=OCBC NISP
200=Bank Tabungan Negara (BTN)
451=Bank Syariah Indonesia (BSI)
535=SeaBank Indonesia
542=Bank Jago
`);

export const TH_BANKS = parseBanks(`
2=Bangkok Bank
4=Kasikornbank
6=Krung Thai Bank
11=TMBThanachart Bank (ttb)
14=Siam Commercial Bank
22=CIMB Thai
24=United Overseas Bank (Thai)
25=Bank of Ayudhya (Krungsri)
30=Government Savings Bank
34=Bank for Agriculture and Agricultural Cooperatives
69=Kiatnakin Phatra Bank
73=Land and Houses Bank
`);

export const VN_BANKS = parseBanks(`
970403=Sacombank
970405=Agribank
970407=Techcombank
970415=VietinBank
970416=ACB
970418=BIDV
970422=MB Bank
970423=TPBank
970432=VPBank
970436=Vietcombank
`);

export const IN_BANKS = parseBanks(`
1=State Bank of India
2=HDFC Bank
3=ICICI Bank
4=Axis Bank
5=Kotak Mahindra Bank
6=Punjab National Bank
7=Bank of Baroda
8=Canara Bank
9=Union Bank of India
10=IndusInd Bank
11=Yes Bank
12=IDFC First Bank
`);

export const MY_BANKS = parseBanks(`
1=Maybank
2=CIMB Bank
3=Public Bank
4=RHB Bank
5=Hong Leong Bank
6=AmBank
7=Bank Islam
8=Bank Rakyat
9=OCBC Bank Malaysia
10=UOB Malaysia
`);

export const PH_BANKS = parseBanks(`
1=BDO Unibank
2=Bank of the Philippine Islands (BPI)
3=Metrobank
4=Land Bank of the Philippines
5=Philippine National Bank (PNB)
6=Security Bank
7=UnionBank of the Philippines
8=RCBC
9=China Bank
10=EastWest Bank
`);
