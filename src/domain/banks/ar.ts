// Argentina: BCRA entity codes (the first three digits of a CBU), transcribed from the BCRA's
// list of financial entities ("Entidades financieras", bcra.gob.ar, Sistema Financiero) on
// 2026-11-23. Entities absorbed by another keep their code while their CBUs stay in use.
// Virtual-wallet CVUs start with 000 and name no bank. Not produced by scripts/refresh-banks.ts
// (no maintained machine-readable copy in a registry we can use); refresh by hand from the BCRA list.
import { parseBanks } from './types.ts';

export const AR_BANKS = parseBanks(`
7=Banco de Galicia y Buenos Aires
11=Banco de la Nación Argentina
14=Banco de la Provincia de Buenos Aires
15=Industrial and Commercial Bank of China (ICBC Argentina)
16=Citibank N.A.
17=BBVA Argentina
20=Banco de la Provincia de Córdoba
27=Banco Supervielle
29=Banco de la Ciudad de Buenos Aires
34=Banco Patagonia
44=Banco Hipotecario
45=Banco de San Juan
60=Banco de Tucumán
65=Banco Municipal de Rosario
72=Banco Santander Argentina
83=Banco del Chubut
86=Banco de Santa Cruz
93=Banco de La Pampa
94=Banco de Corrientes
97=Banco Provincia del Neuquén
143=Brubank
147=Banco Interfinanzas
150=HSBC Bank Argentina
165=JPMorgan Chase Bank N.A.
191=Banco Credicoop Cooperativo
198=Banco de Valores
247=Banco Roela
254=Banco Mariva
259=Banco Itaú Argentina
266=BNP Paribas
268=Banco Provincia de Tierra del Fuego
269=Banco de la República Oriental del Uruguay
277=Banco Sáenz
281=Banco Meridian
285=Banco Macro
299=Banco Comafi
300=Banco de Inversión y Comercio Exterior (BICE)
301=Banco Piano
305=Banco Julio
309=Banco Rioja
310=Banco del Sol
311=Nuevo Banco del Chaco
312=Banco Voii
315=Banco de Formosa
319=Banco CMF
321=Banco de Santiago del Estero
322=Banco Industrial (BIND)
330=Nuevo Banco de Santa Fe
331=Banco Cetelem Argentina
332=Banco de Servicios Financieros
338=Banco de Servicios y Transacciones
339=RCI Banque
340=BACS Banco de Crédito y Securitización
341=Banco Masventas
384=Wilobank
386=Nuevo Banco de Entre Ríos
389=Banco Columbia
426=Banco Bica
431=Banco Coinag
432=Banco de Comercio
435=Banco Sucrédito Regional
448=Banco Dino
`);
