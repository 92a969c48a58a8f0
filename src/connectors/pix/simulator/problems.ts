// Error answers in the API Pix's RFC 7807 form: `type` is
// `https://pix.bcb.gov.br/api/v2/error/<TipoErro>`, with the titles and meanings the OpenAPI
// document's error section gives. One table; handlers name the error, never a status code.
import type { Violacao } from './schema.ts';

const BASE = 'https://pix.bcb.gov.br/api/v2/error/';

export const PROBLEMS = {
  RequisicaoInvalida: [400, 'Requisição inválida', 'Requisição inválida.'],
  NaoAutorizado: [401, 'Não autorizado', 'O token de acesso está ausente, expirou ou não é válido.'],
  AcessoNegado: [403, 'Acesso Negado', 'Requisição de participante autenticado que viola alguma regra de autorização.'],
  NaoEncontrado: [404, 'Não Encontrado', 'Entidade não encontrada.'],
  ErroInternoDoServidor: [500, 'Erro Interno do Servidor', 'Condição inesperada ao processar requisição.'],
  ServicoIndisponivel: [503, 'Serviço Indisponível', 'Serviço não está disponível no momento. Serviço solicitado pode estar em manutenção ou fora da janela de funcionamento.'],
  IndisponibilidadePorTempoEsgotado: [504, 'Indisponibilidade por tempo esgotado', 'O serviço demorou além do esperado para retornar.'],
  CobNaoEncontrado: [404, 'Cobrança não encontrada', 'Cobrança não encontrada para o txid informado.'],
  CobOperacaoInvalida: [400, 'Cobrança inválida.', 'A requisição que busca alterar ou criar uma cobrança para pagamento imediato não respeita o schema ou está semanticamente errada.'],
  CobConsultaInvalida: [400, 'Consulta inválida', 'Os parâmetros de consulta à cobrança não respeitam o schema ou não fazem sentido semanticamente.'],
  PixNaoEncontrado: [404, 'Pix não encontrado', 'Pix não encontrado para o e2eid informado.'],
  PixDevolucaoNaoEncontrada: [404, 'Devolução não encontrada', 'Devolução não encontrada para o e2eid informado.'],
  PixConsultaInvalida: [400, 'Consulta inválida', 'Os parâmetros de consulta à lista de pix recebidos não respeitam o schema ou não fazem sentido semanticamente.'],
  PixDevolucaoInvalida: [400, 'Devolução inválida.', 'A presente requisição de devolução não respeita o schema ou não faz sentido semanticamente.'],
  WebhookOperacaoInvalida: [400, 'Webhook inválido.', 'A presente requisição busca criar um webhook sem respeitar o schema ou, ainda, com sentido semanticamente inválido.'],
  WebhookNaoEncontrado: [404, 'Webhook não encontrado', 'O webhook denotado por {chave} não encontra-se estabelecido.'],
} as const satisfies Record<string, readonly [number, string, string]>;

export type ProblemType = keyof typeof PROBLEMS;

export interface Problema {
  type: string;
  title: string;
  status: number;
  detail: string;
  violacoes?: Violacao[];
}

export function problem(type: ProblemType, detail?: string, violacoes?: Violacao[]): Problema {
  const [status, title, defaultDetail] = PROBLEMS[type];
  const p: Problema = { type: BASE + type, title, status, detail: detail ?? defaultDetail };
  if (violacoes?.length) p.violacoes = violacoes;
  return p;
}

/** The general problem for an HTTP status (what `fail-next-cob` answers). */
export function problemForStatus(status: number, detail?: string): Problema {
  const general: Record<number, ProblemType> = {
    400: 'CobOperacaoInvalida',
    401: 'NaoAutorizado',
    403: 'AcessoNegado',
    404: 'NaoEncontrado',
    500: 'ErroInternoDoServidor',
    503: 'ServicoIndisponivel',
    504: 'IndisponibilidadePorTempoEsgotado',
  };
  const type = general[status];
  if (type) return problem(type, detail);
  return { type: BASE + 'RequisicaoInvalida', title: 'Erro simulado', status, detail: detail ?? `Erro ${status} simulado.` };
}
