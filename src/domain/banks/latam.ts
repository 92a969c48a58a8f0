// The other Latin American countries. Codes are each country's interbank participant codes:
// CO ACH Colombia, CL CMF (ex-SBIF), PE CCE (first digits of the CCI), UY BCU, EC SPI, PA ACH
// routing numbers. Paraguay has no public numeric registry we can cite, so its codes are ours.
// Transcribed from the registries named above (checked 2026-11-23); these have no machine-readable copy in a
// registry we can use, so scripts/refresh-banks.ts leaves them alone: refresh by hand.
import { parseBanks } from './types.ts';

export const CO_BANKS = parseBanks(`
1001=Banco de Bogotá
1002=Banco Popular
1006=Itaú
1007=Bancolombia
1009=Citibank
1012=Banco GNB Sudameris
1013=BBVA Colombia
1019=Scotiabank Colpatria
1023=Banco de Occidente
1032=Banco Caja Social
1040=Banco Agrario
1051=Davivienda
1052=Banco AV Villas
1053=Banco W
1060=Banco Pichincha
1061=Bancoomeva
1062=Banco Falabella
1063=Banco Finandina
1507=Nequi
1551=Daviplata
`);

export const CL_BANKS = parseBanks(`
1=Banco de Chile
9=Banco Internacional
12=BancoEstado
14=Scotiabank Chile
16=Banco de Crédito e Inversiones (BCI)
28=Banco BICE
31=HSBC Bank Chile
37=Banco Santander Chile
39=Banco Itaú Chile
49=Banco Security
51=Banco Falabella
53=Banco Ripley
55=Banco Consorcio
672=Coopeuch
`);

export const PE_BANKS = parseBanks(`
2=Banco de Crédito del Perú (BCP)
3=Interbank
7=Citibank Perú
9=Scotiabank Perú
11=BBVA Perú
18=Banco de la Nación
23=Banco de Comercio
35=Banco Pichincha
38=BanBif
49=Mibanco
53=Banco GNB Perú
54=Banco Falabella
56=Banco Santander Perú
`);

export const UY_BANKS = parseBanks(`
1=Banco República (BROU)
91=Banco Hipotecario del Uruguay
110=Bandes Uruguay
113=Itaú Uruguay
128=Scotiabank Uruguay
137=Santander Uruguay
153=BBVA Uruguay
157=HSBC Uruguay
162=Banque Heritage
205=Citibank Uruguay
`);

export const EC_BANKS = parseBanks(`
10=Banco Pichincha
17=Banco de Guayaquil
30=Banco del Pacífico
32=Banco Internacional
35=Banco del Austro
36=Produbanco
37=Banco Bolivariano
`);

export const PA_BANKS = parseBanks(`
13=Banco Nacional de Panamá
26=Banistmo
71=Banco General
372=Multibank
770=Caja de Ahorros
1106=Credicorp Bank
1151=Global Bank
1384=BAC Credomatic
1588=Banesco
`);

export const PY_BANKS = parseBanks(`
1=Banco Nacional de Fomento
2=Banco Itaú Paraguay
3=Banco Continental
4=Banco GNB Paraguay
5=Sudameris Bank
6=Banco Basa
7=Banco Atlas
8=Banco Familiar
9=Visión Banco
10=ueno bank
`);
