// Argentina: BCRA entity codes, the first three digits of a CBU.
import { parseBanks } from './types.ts';

export const AR_BANKS = parseBanks(`
7=Banco de Galicia y Buenos Aires
11=Banco de la Nación Argentina
14=Banco de la Provincia de Buenos Aires
15=ICBC Argentina
17=BBVA Argentina
20=Banco de la Provincia de Córdoba
27=Banco Supervielle
29=Banco de la Ciudad de Buenos Aires
34=Banco Patagonia
44=Banco Hipotecario
45=Banco de San Juan
72=Banco Santander Argentina
83=Banco del Chubut
86=Banco de Santa Cruz
93=Banco de La Pampa
97=Banco Provincia del Neuquén
143=Brubank
150=HSBC Bank Argentina
191=Banco Credicoop
259=Banco Itaú Argentina
268=Banco de Tierra del Fuego
285=Banco Macro
299=Banco Comafi
322=Banco Industrial (BIND)
330=Nuevo Banco de Santa Fe
386=Nuevo Banco de Entre Ríos
`);
