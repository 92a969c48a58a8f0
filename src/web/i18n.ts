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
  notFoundTitle: 'Payment not found',
  notFound: 'This payment link is not valid. Check the link you received, or ask the merchant for a new one.',
  errorTitle: 'Something went wrong',
  error: 'This page could not be shown. Please try again in a moment.',
  secured: 'Payment processed by Caja',
  amountPaid: 'Amount paid',
  amountDue: 'Amount',
  was: 'Before',
  bonus: 'Bonus',
  bonusHint: 'You pay {amount} and receive {total}.',
  timeLeft: 'Time left',
  language: 'Language',
  chooseMethod: 'Choose how to pay',
  typeBANK_TRANSFER: 'Bank transfer',
  typeBANK_DEPOSIT: 'Bank deposit',
  typeVOUCHER: 'Cash',
  typeCREDIT_CARD: 'Credit card',
  typeDEBIT_CARD: 'Debit card',
  typeWALLET: 'Digital wallet',
  typeCRYPTO: 'Crypto',
  noMethods: 'No payment method is available for this payment.',
  noMethodsHint: 'Go back to the merchant to pay in another way.',
  yourDetails: 'Your details',
  detailsHint: '{method} needs these details to set up your payment.',
  noDetailsHint: 'Nothing else is needed: confirm to see how to pay with {method}.',
  fieldDocument: 'Document number',
  fieldFirstName: 'First name',
  fieldLastName: 'Last name',
  fieldEmail: 'E-mail',
  fieldPhone: 'Mobile phone',
  fieldStreet: 'Street and number',
  fieldCity: 'City',
  fieldState: 'State',
  fieldZip: 'Postal code',
  chooseState: 'Choose…',
  continue: 'Continue',
  changeMethod: 'Choose another method',
  cancelPayment: 'Cancel and return to the merchant',
  errorSummary: 'Please correct the fields marked below.',
  errRequired: 'This field is required.',
  errDocument: 'This document number is not valid.',
  errEmail: 'Enter a valid e-mail address.',
  errPhone: 'Enter a valid mobile number, with its area code.',
  errState: 'Choose a valid state.',
  errZip: 'Enter a valid postal code.',
  errText: 'This value is too long.',
  probNotPayable: 'This payment can no longer be made.',
  probMethodUnavailable: 'This payment method cannot be set up for this payment.',
  probProviderUnavailable: 'This payment method is not available right now. Please try again in a moment or choose another one.',
  probAlreadyChosen: 'A payment method was already chosen for this payment.',
  cardTitle: 'Pay by card',
  cardNumber: 'Card number',
  cardExpiry: 'Expiry date (MM/YY)',
  cardCvc: 'Security code (CVC)',
  cardHolder: 'Name on the card',
  cardBrand: 'Card brand',
  payNow: 'Pay now',
  cardDeclined: 'Your card was declined. Try another card, or choose another method.',
  errNumberInvalid: 'This card number is not valid.',
  errBrandMismatch: 'This card is not a {method} card. Use a {method} card or choose another method.',
  errExpiryInvalid: 'Enter the expiry date as MM/YY.',
  errExpired: 'This card has expired.',
  errCvcInvalid: 'Enter the 3-digit code on the back of the card (4 digits on the front for American Express).',
  errHolderInvalid: 'Enter the name as printed on the card.',
  challengeTitle: 'Confirm this payment with your bank',
  challengeHint: 'Your bank asks you to confirm the payment with card {card}.',
  confirmPayment: 'Confirm payment',
  rejectPayment: 'Do not confirm',
  challengeFailed: 'The payment was not confirmed with your bank. Try again, or choose another method.',
  paidWith: 'Paid with',
  formExpired: 'This form is no longer valid. Reload the page and try again.',
  stagingBanner: 'Staging: this is a test page. No real payment happens here.',
  simulateTitle: 'Staging simulation',
  simulatePayment: 'Simulate payment',
  simulateCancellation: 'Simulate cancellation',
  simulateHint: 'These buttons do what the payment provider would do, and notify the merchant.',
  testCards: 'Test cards: 4111 1111 1111 1111 approves, 4000 0000 0000 0002 is declined, 4000 0000 0000 3220 asks for confirmation.',
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
  notFoundTitle: 'Pago no encontrado',
  notFound: 'Este enlace de pago no es válido. Revisa el enlace que recibiste o pide uno nuevo al comercio.',
  errorTitle: 'Algo salió mal',
  error: 'No se pudo mostrar esta página. Inténtalo de nuevo en un momento.',
  secured: 'Pago procesado por Caja',
  amountPaid: 'Monto pagado',
  amountDue: 'Monto',
  was: 'Antes',
  bonus: 'Bono',
  bonusHint: 'Pagas {amount} y recibes {total}.',
  timeLeft: 'Tiempo restante',
  language: 'Idioma',
  chooseMethod: 'Elige cómo pagar',
  typeBANK_TRANSFER: 'Transferencia bancaria',
  typeBANK_DEPOSIT: 'Depósito bancario',
  typeVOUCHER: 'Efectivo',
  typeCREDIT_CARD: 'Tarjeta de crédito',
  typeDEBIT_CARD: 'Tarjeta de débito',
  typeWALLET: 'Billetera digital',
  typeCRYPTO: 'Cripto',
  noMethods: 'No hay ningún medio de pago disponible para este pago.',
  noMethodsHint: 'Vuelve al comercio para pagar de otra forma.',
  yourDetails: 'Tus datos',
  detailsHint: '{method} necesita estos datos para preparar tu pago.',
  noDetailsHint: 'No se necesita nada más: confirma para ver cómo pagar con {method}.',
  fieldDocument: 'Número de documento',
  fieldFirstName: 'Nombre',
  fieldLastName: 'Apellido',
  fieldEmail: 'Correo electrónico',
  fieldPhone: 'Teléfono móvil',
  fieldStreet: 'Calle y número',
  fieldCity: 'Ciudad',
  fieldState: 'Estado',
  fieldZip: 'Código postal',
  chooseState: 'Elige…',
  continue: 'Continuar',
  changeMethod: 'Elegir otro medio',
  cancelPayment: 'Cancelar y volver al comercio',
  errorSummary: 'Corrige los campos marcados abajo.',
  errRequired: 'Este campo es obligatorio.',
  errDocument: 'Este número de documento no es válido.',
  errEmail: 'Escribe un correo electrónico válido.',
  errPhone: 'Escribe un número móvil válido, con su código de área.',
  errState: 'Elige un estado válido.',
  errZip: 'Escribe un código postal válido.',
  errText: 'Este valor es demasiado largo.',
  probNotPayable: 'Este pago ya no se puede realizar.',
  probMethodUnavailable: 'Este medio de pago no se puede preparar para este pago.',
  probProviderUnavailable: 'Este medio de pago no está disponible en este momento. Inténtalo de nuevo en un momento o elige otro.',
  probAlreadyChosen: 'Ya se eligió un medio de pago para este pago.',
  cardTitle: 'Pagar con tarjeta',
  cardNumber: 'Número de tarjeta',
  cardExpiry: 'Vencimiento (MM/AA)',
  cardCvc: 'Código de seguridad (CVC)',
  cardHolder: 'Nombre en la tarjeta',
  cardBrand: 'Marca de la tarjeta',
  payNow: 'Pagar ahora',
  cardDeclined: 'Tu tarjeta fue rechazada. Prueba con otra tarjeta o elige otro medio.',
  errNumberInvalid: 'Este número de tarjeta no es válido.',
  errBrandMismatch: 'Esta tarjeta no es {method}. Usa una tarjeta {method} o elige otro medio.',
  errExpiryInvalid: 'Escribe el vencimiento como MM/AA.',
  errExpired: 'Esta tarjeta está vencida.',
  errCvcInvalid: 'Escribe el código de 3 dígitos del reverso (4 dígitos al frente en American Express).',
  errHolderInvalid: 'Escribe el nombre como aparece en la tarjeta.',
  challengeTitle: 'Confirma este pago con tu banco',
  challengeHint: 'Tu banco te pide confirmar el pago con la tarjeta {card}.',
  confirmPayment: 'Confirmar pago',
  rejectPayment: 'No confirmar',
  challengeFailed: 'El pago no fue confirmado con tu banco. Inténtalo de nuevo o elige otro medio.',
  paidWith: 'Pagado con',
  formExpired: 'Este formulario ya no es válido. Recarga la página e inténtalo de nuevo.',
  stagingBanner: 'Staging: esta es una página de prueba. Aquí no se realiza ningún pago real.',
  simulateTitle: 'Simulación de staging',
  simulatePayment: 'Simular pago',
  simulateCancellation: 'Simular cancelación',
  simulateHint: 'Estos botones hacen lo que haría el proveedor de pago y avisan al comercio.',
  testCards: 'Tarjetas de prueba: 4111 1111 1111 1111 se aprueba, 4000 0000 0000 0002 se rechaza, 4000 0000 0000 3220 pide confirmación.',
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
  notFoundTitle: 'Pagamento não encontrado',
  notFound: 'Este link de pagamento não é válido. Confira o link que você recebeu ou peça um novo à loja.',
  errorTitle: 'Algo deu errado',
  error: 'Não foi possível mostrar esta página. Tente novamente em instantes.',
  secured: 'Pagamento processado pela Caja',
  amountPaid: 'Valor pago',
  amountDue: 'Valor',
  was: 'Antes',
  bonus: 'Bônus',
  bonusHint: 'Você paga {amount} e recebe {total}.',
  timeLeft: 'Tempo restante',
  language: 'Idioma',
  chooseMethod: 'Escolha como pagar',
  typeBANK_TRANSFER: 'Transferência bancária',
  typeBANK_DEPOSIT: 'Depósito bancário',
  typeVOUCHER: 'Dinheiro',
  typeCREDIT_CARD: 'Cartão de crédito',
  typeDEBIT_CARD: 'Cartão de débito',
  typeWALLET: 'Carteira digital',
  typeCRYPTO: 'Cripto',
  noMethods: 'Nenhuma forma de pagamento está disponível para este pagamento.',
  noMethodsHint: 'Volte para a loja para pagar de outra forma.',
  yourDetails: 'Seus dados',
  detailsHint: '{method} precisa destes dados para preparar o seu pagamento.',
  noDetailsHint: 'Nada mais é necessário: confirme para ver como pagar com {method}.',
  fieldDocument: 'Número do documento',
  fieldFirstName: 'Nome',
  fieldLastName: 'Sobrenome',
  fieldEmail: 'E-mail',
  fieldPhone: 'Celular',
  fieldStreet: 'Rua e número',
  fieldCity: 'Cidade',
  fieldState: 'Estado',
  fieldZip: 'CEP',
  chooseState: 'Escolha…',
  continue: 'Continuar',
  changeMethod: 'Escolher outra forma',
  cancelPayment: 'Cancelar e voltar para a loja',
  errorSummary: 'Corrija os campos marcados abaixo.',
  errRequired: 'Este campo é obrigatório.',
  errDocument: 'Este número de documento não é válido.',
  errEmail: 'Informe um e-mail válido.',
  errPhone: 'Informe um celular válido, com DDD.',
  errState: 'Escolha um estado válido.',
  errZip: 'Informe um CEP válido.',
  errText: 'Este valor é longo demais.',
  probNotPayable: 'Este pagamento não pode mais ser feito.',
  probMethodUnavailable: 'Esta forma de pagamento não pode ser preparada para este pagamento.',
  probProviderUnavailable: 'Esta forma de pagamento não está disponível agora. Tente de novo em instantes ou escolha outra.',
  probAlreadyChosen: 'Uma forma de pagamento já foi escolhida para este pagamento.',
  cardTitle: 'Pagar com cartão',
  cardNumber: 'Número do cartão',
  cardExpiry: 'Validade (MM/AA)',
  cardCvc: 'Código de segurança (CVC)',
  cardHolder: 'Nome impresso no cartão',
  cardBrand: 'Bandeira do cartão',
  payNow: 'Pagar agora',
  cardDeclined: 'Seu cartão foi recusado. Tente outro cartão ou escolha outra forma.',
  errNumberInvalid: 'Este número de cartão não é válido.',
  errBrandMismatch: 'Este cartão não é {method}. Use um cartão {method} ou escolha outra forma.',
  errExpiryInvalid: 'Informe a validade como MM/AA.',
  errExpired: 'Este cartão está vencido.',
  errCvcInvalid: 'Informe o código de 3 dígitos do verso (4 dígitos na frente no American Express).',
  errHolderInvalid: 'Informe o nome como impresso no cartão.',
  challengeTitle: 'Confirme este pagamento com o seu banco',
  challengeHint: 'Seu banco pede que você confirme o pagamento com o cartão {card}.',
  confirmPayment: 'Confirmar pagamento',
  rejectPayment: 'Não confirmar',
  challengeFailed: 'O pagamento não foi confirmado com o seu banco. Tente de novo ou escolha outra forma.',
  paidWith: 'Pago com',
  formExpired: 'Este formulário não é mais válido. Recarregue a página e tente de novo.',
  stagingBanner: 'Staging: esta é uma página de teste. Nenhum pagamento real acontece aqui.',
  simulateTitle: 'Simulação de staging',
  simulatePayment: 'Simular pagamento',
  simulateCancellation: 'Simular cancelamento',
  simulateHint: 'Estes botões fazem o que o provedor de pagamento faria e avisam a loja.',
  testCards: 'Cartões de teste: 4111 1111 1111 1111 é aprovado, 4000 0000 0000 0002 é recusado, 4000 0000 0000 3220 pede confirmação.',
};

const TABLE: Record<Lang, Strings> = { en, es, pt };

export function pickLang(language: string | null | undefined): Lang {
  const l = language?.trim().toLowerCase().slice(0, 2);
  return (PAGE_LANGUAGES as readonly string[]).includes(l ?? '') ? (l as Lang) : 'en';
}

/** The first supported language the browser asks for, by its q weights; undefined if none. */
export function acceptedLang(header: string | undefined): Lang | undefined {
  const ranked = (header ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { l: (tag ?? '').trim().slice(0, 2).toLowerCase(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((x) => x.q > 0 && (PAGE_LANGUAGES as readonly string[]).includes(x.l))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked[0]?.l as Lang | undefined;
}

/** For pages without a deposit (404): the browser's language, else English. */
export function langFromAcceptLanguage(header: string | undefined): Lang {
  return acceptedLang(header) ?? 'en';
}

/** Where Spanish or Portuguese is what people read; English elsewhere. */
const COUNTRY_LANG: Record<string, Lang> = {
  BR: 'pt', AR: 'es', CL: 'es', CO: 'es', EC: 'es', MX: 'es', PA: 'es', PE: 'es', PY: 'es', UY: 'es',
};

/**
 * A customer page's language: the switcher's choice, else the deposit request's `language`, else
 * the browser's Accept-Language, else the country's language.
 */
export function resolveLang(chosen: string | undefined, requested: string | null, acceptLanguage: string | undefined, country: string): Lang {
  const valid = (l: string | null | undefined) => {
    const x = l?.trim().toLowerCase();
    return x && (PAGE_LANGUAGES as readonly string[]).includes(x) ? (x as Lang) : undefined;
  };
  return valid(chosen) ?? valid(requested) ?? acceptedLang(acceptLanguage) ?? COUNTRY_LANG[country] ?? 'en';
}

/** `{name}` placeholders filled with values (text, escaped later like any other). */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
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
