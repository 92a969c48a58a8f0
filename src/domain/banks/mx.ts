// Mexico: the 3-digit institution codes (ABM / Banxico) that open every CLABE.
import { parseBanks } from './types.ts';

export const MX_BANKS = parseBanks(`
2=Banamex
6=Bancomext
9=Banobras
12=BBVA México
14=Santander
19=Banjército
21=HSBC
30=BanBajío
36=Inbursa
42=Mifel
44=Scotiabank
58=Banregio
59=Invex
60=Bansi
62=Afirme
72=Banorte
106=Bank of America
127=Banco Azteca
130=Compartamos
132=Multiva
137=BanCoppel
140=Consubanco
166=Banco del Bienestar
638=Nu México
646=STP
722=Mercado Pago W
`);
