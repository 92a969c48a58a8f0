// Brazil: COMPE codes from the Banco Central's list of participants (STR/COMPE).
import { parseBanks } from './types.ts';

export const BR_BANKS = parseBanks(`
1=Banco do Brasil
3=Banco da Amazônia
4=Banco do Nordeste do Brasil
21=Banestes
33=Banco Santander (Brasil)
37=Banpará
41=Banrisul
47=Banese
70=BRB - Banco de Brasília
77=Banco Inter
104=Caixa Econômica Federal
121=Agibank
136=Unicred
197=Stone Instituição de Pagamento
208=Banco BTG Pactual
212=Banco Original
218=Banco BS2
237=Bradesco
260=Nu Pagamentos (Nubank)
290=PagSeguro Internet (PagBank)
318=Banco BMG
323=Mercado Pago
336=Banco C6
341=Itaú Unibanco
364=Efí (Gerencianet)
380=PicPay
389=Banco Mercantil do Brasil
399=Kirton Bank
403=Cora SCD
422=Banco Safra
461=Asaas
623=Banco Pan
633=Banco Rendimento
655=Banco Votorantim (BV)
735=Banco Neon
745=Banco Citibank
746=Banco Modal
748=Sicredi
756=Sicoob
`);
