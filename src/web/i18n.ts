// The customer pages' words in the languages a deposit may ask for (es, en, pt; default en), and
// locale-aware formatting of amounts and dates that never goes through a float: the amount a
// customer must pay is shown with exactly the stored digits.

export const PAGE_LANGUAGES = ['en', 'es', 'pt'] as const;
export type Lang = (typeof PAGE_LANGUAGES)[number];

const en = {
  payTitle: 'Payment information',
  voucherTitle: 'Payment voucher',
  checkoutTitle: 'Checkout',
  amount: 'Amount to pay',
  method: 'Payment method',
  merchant: 'Merchant',
  description: 'Description',
  reference: 'Reference',
  expires: 'Pay before',
  due: 'Due date',
  status: 'Status',
  statusPENDING: 'Awaiting payment',
  statusAPPROVED: 'Payment received, being confirmed',
  statusCOMPLETED: 'Paid',
  statusCANCELLED: 'Cancelled',
  statusEXPIRED: 'Expired',
  expired: 'This payment has expired.',
  expiredHint: 'Do not pay it. If you still want to pay, ask the merchant for a new payment.',
  completed: 'This payment was completed.',
  completedHint: 'Thank you. There is nothing left to pay.',
  cancelled: 'This payment was cancelled.',
  cancelledHint: 'Do not pay it. If you still want to pay, ask the merchant for a new payment.',
  confirming: 'Your payment was received and is being confirmed.',
  confirmingHint: 'There is nothing left to do; the merchant will be told when it is confirmed.',
  pixScan: 'Scan the QR code with your bank app',
  pixQrAlt: 'Pix QR code',
  pixCopy: 'Or pay with the Pix copy-and-paste code (copia e cola)',
  copy: 'Copy',
  copied: 'Copied',
  bankIntro: 'Send exactly the amount above to this account and quote the reference.',
  depositIntro: 'Deposit exactly the amount above into this account and quote the reference.',
  beneficiary: 'Beneficiary',
  agency: 'Branch',
  account: 'Account',
  clabe: 'CLABE',
  cnpj: 'CNPJ',
  payerDocument: 'Your document',
  voucherIntro: 'Pay with the bar code, or by typing the line below.',
  barCode: 'Bar code',
  digitableLine: 'Line to type',
  openVoucher: 'Open the printable voucher',
  print: 'Print',
  noInstructions: 'Follow the instructions the merchant gave you to complete this payment.',
  returnToMerchant: 'Return to the merchant',
  checkoutUnavailable: 'The hosted checkout is not yet available for this payment in this environment.',
  checkoutHint: 'No payment can be made on this page. Please go back to the merchant to choose another way to pay.',
  notFoundTitle: 'Payment not found',
  notFound: 'This payment link is not valid. Check the link you received, or ask the merchant for a new one.',
  errorTitle: 'Something went wrong',
  error: 'This page could not be shown. Please try again in a moment.',
  secured: 'Payment processed by Caja',
};

export type Strings = typeof en;

const es: Strings = {
  payTitle: 'Información de pago',
  voucherTitle: 'Ficha de pago',
  checkoutTitle: 'Pago',
  amount: 'Monto a pagar',
  method: 'Medio de pago',
  merchant: 'Comercio',
  description: 'Descripción',
  reference: 'Referencia',
  expires: 'Paga antes del',
  due: 'Fecha límite',
  status: 'Estado',
  statusPENDING: 'Pendiente de pago',
  statusAPPROVED: 'Pago recibido, en confirmación',
  statusCOMPLETED: 'Pagado',
  statusCANCELLED: 'Cancelado',
  statusEXPIRED: 'Vencido',
  expired: 'Este pago ha vencido.',
  expiredHint: 'No lo pagues. Si aún quieres pagar, pide al comercio un nuevo pago.',
  completed: 'Este pago fue completado.',
  completedHint: 'Gracias. No queda nada por pagar.',
  cancelled: 'Este pago fue cancelado.',
  cancelledHint: 'No lo pagues. Si aún quieres pagar, pide al comercio un nuevo pago.',
  confirming: 'Recibimos tu pago y lo estamos confirmando.',
  confirmingHint: 'No tienes que hacer nada más; avisaremos al comercio cuando se confirme.',
  pixScan: 'Escanea el código QR con la app de tu banco',
  pixQrAlt: 'Código QR de Pix',
  pixCopy: 'O paga con el código Pix para copiar y pegar (copia e cola)',
  copy: 'Copiar',
  copied: 'Copiado',
  bankIntro: 'Transfiere exactamente el monto indicado a esta cuenta e incluye la referencia.',
  depositIntro: 'Deposita exactamente el monto indicado en esta cuenta e incluye la referencia.',
  beneficiary: 'Beneficiario',
  agency: 'Sucursal',
  account: 'Cuenta',
  clabe: 'CLABE',
  cnpj: 'CNPJ',
  payerDocument: 'Tu documento',
  voucherIntro: 'Paga con el código de barras o dictando la línea de abajo.',
  barCode: 'Código de barras',
  digitableLine: 'Línea de captura',
  openVoucher: 'Abrir la ficha para imprimir',
  print: 'Imprimir',
  noInstructions: 'Sigue las instrucciones que te dio el comercio para completar este pago.',
  returnToMerchant: 'Volver al comercio',
  checkoutUnavailable: 'El checkout alojado aún no está disponible para este pago en este entorno.',
  checkoutHint: 'En esta página no se puede pagar. Vuelve al comercio para elegir otra forma de pago.',
  notFoundTitle: 'Pago no encontrado',
  notFound: 'Este enlace de pago no es válido. Revisa el enlace que recibiste o pide uno nuevo al comercio.',
  errorTitle: 'Algo salió mal',
  error: 'No se pudo mostrar esta página. Inténtalo de nuevo en un momento.',
  secured: 'Pago procesado por Caja',
};

const pt: Strings = {
  payTitle: 'Informações de pagamento',
  voucherTitle: 'Comprovante para pagamento',
  checkoutTitle: 'Pagamento',
  amount: 'Valor a pagar',
  method: 'Forma de pagamento',
  merchant: 'Loja',
  description: 'Descrição',
  reference: 'Referência',
  expires: 'Pague até',
  due: 'Vencimento',
  status: 'Situação',
  statusPENDING: 'Aguardando pagamento',
  statusAPPROVED: 'Pagamento recebido, em confirmação',
  statusCOMPLETED: 'Pago',
  statusCANCELLED: 'Cancelado',
  statusEXPIRED: 'Expirado',
  expired: 'Este pagamento expirou.',
  expiredHint: 'Não pague. Se ainda quiser pagar, peça um novo pagamento à loja.',
  completed: 'Este pagamento foi concluído.',
  completedHint: 'Obrigado. Não há mais nada a pagar.',
  cancelled: 'Este pagamento foi cancelado.',
  cancelledHint: 'Não pague. Se ainda quiser pagar, peça um novo pagamento à loja.',
  confirming: 'Recebemos seu pagamento e estamos confirmando.',
  confirmingHint: 'Não é preciso fazer mais nada; a loja será avisada quando for confirmado.',
  pixScan: 'Escaneie o QR code com o app do seu banco',
  pixQrAlt: 'QR code Pix',
  pixCopy: 'Ou pague com o código Pix copia e cola',
  copy: 'Copiar',
  copied: 'Copiado',
  bankIntro: 'Transfira exatamente o valor acima para esta conta e informe a referência.',
  depositIntro: 'Deposite exatamente o valor acima nesta conta e informe a referência.',
  beneficiary: 'Favorecido',
  agency: 'Agência',
  account: 'Conta',
  clabe: 'CLABE',
  cnpj: 'CNPJ',
  payerDocument: 'Seu documento',
  voucherIntro: 'Pague com o código de barras ou digitando a linha abaixo.',
  barCode: 'Código de barras',
  digitableLine: 'Linha digitável',
  openVoucher: 'Abrir o comprovante para imprimir',
  print: 'Imprimir',
  noInstructions: 'Siga as instruções que a loja lhe deu para concluir este pagamento.',
  returnToMerchant: 'Voltar para a loja',
  checkoutUnavailable: 'O checkout hospedado ainda não está disponível para este pagamento neste ambiente.',
  checkoutHint: 'Nenhum pagamento pode ser feito nesta página. Volte para a loja para escolher outra forma de pagamento.',
  notFoundTitle: 'Pagamento não encontrado',
  notFound: 'Este link de pagamento não é válido. Confira o link que você recebeu ou peça um novo à loja.',
  errorTitle: 'Algo deu errado',
  error: 'Não foi possível mostrar esta página. Tente novamente em instantes.',
  secured: 'Pagamento processado pela Caja',
};

const TABLE: Record<Lang, Strings> = { en, es, pt };

export function pickLang(language: string | null | undefined): Lang {
  const l = language?.trim().toLowerCase().slice(0, 2);
  return (PAGE_LANGUAGES as readonly string[]).includes(l ?? '') ? (l as Lang) : 'en';
}

/** For pages without a deposit (404): the first supported language the browser asks for. */
export function langFromAcceptLanguage(header: string | undefined): Lang {
  for (const part of (header ?? '').split(',')) {
    const l = part.trim().slice(0, 2).toLowerCase();
    if ((PAGE_LANGUAGES as readonly string[]).includes(l)) return l as Lang;
  }
  return 'en';
}

export function strings(lang: Lang): Strings {
  return TABLE[lang];
}

/** A BCP 47 locale from the page language and the deposit country: es-MX writes 1,234.50. */
export function localeOf(lang: Lang, country: string | undefined): string {
  const candidate = country ? `${lang}-${country.toUpperCase()}` : lang;
  try {
    return Intl.getCanonicalLocales(candidate)[0] ?? lang;
  } catch {
    return lang;
  }
}

/**
 * An exact decimal string ("1234.5", "10", "0.125") with the locale's separators and at least
 * two decimals. Separators come from Intl; the digits never pass through a Number.
 */
export function formatAmount(exact: string, locale: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(exact.trim());
  if (!m) return exact;
  const parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
  const group = parts.find((p) => p.type === 'group')?.value ?? ',';
  const decimal = parts.find((p) => p.type === 'decimal')?.value ?? '.';
  const int = m[2]!.replace(/\B(?=(\d{3})+$)/g, group);
  const frac = (m[3] ?? '').padEnd(2, '0');
  return `${m[1]}${int}${decimal}${frac}`;
}

/** Date and time in the deposit country's zone, with the zone named so nobody misreads it. */
export function formatDateTimeLocal(when: Date, locale: string, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(locale, {
      year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short',
    }).format(when);
  } catch {
    return when.toISOString();
  }
}
