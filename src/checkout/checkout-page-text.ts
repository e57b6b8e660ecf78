import type { ChainFamily } from '../chains/index.js';

/**
 * The words of the hosted payment page in its two languages (issue 12). A
 * function of the language only: the page picks one from `?lang=`, then the
 * cookie the switch sets, then Accept-Language, then English.
 */

export type Lang = 'en' | 'ru';
export const LANGS: readonly Lang[] = ['en', 'ru'];

export interface PageText {
  readonly languageName: string;
  readonly sandbox: string;
  readonly amount: string;
  readonly sendAnyAmountOf: string;
  readonly on: (network: string) => string;
  readonly tokenContract: string;
  /** A family that names the token's address otherwise (Solana: the mint); others get `tokenContract`. */
  readonly tokenContracts: Readonly<Partial<Record<ChainFamily, string>>>;
  readonly sendTo: (symbol: string, network: string) => string;
  readonly address: string;
  readonly copyAddress: string;
  readonly copied: string;
  readonly pressToCopy: string;
  readonly qrLabel: string;
  readonly scanHint: string;
  /** A family whose wallets need a word of their own beside the QR code; others get `scanHint`. */
  readonly scanHints: Readonly<Partial<Record<ChainFamily, string>>>;
  /** What a wallet shows as the payment's message when the invoice has no description (Solana Pay `message`). */
  readonly invoiceMessage: (publicId: string) => string;
  readonly openInWallet: string;
  readonly payWithBrowserWallet: string;
  readonly walletSent: string;
  readonly walletFailed: string;
  readonly received: string;
  readonly remaining: string;
  readonly expires: string;
  readonly timeLeft: string;
  readonly receipt: string;
  readonly amountReceived: string;
  readonly transaction: string;
  readonly viewOnExplorer: string;
  readonly paidAt: string;
  readonly payWithOneOf: (amount: string) => string;
  readonly chooseNetwork: string;
  readonly backTo: (name: string) => string;
  readonly notFoundTitle: string;
  readonly notFoundText: string;
  readonly pageTitle: (name: string) => string;
  readonly titles: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, string>>;
  readonly languageSwitch: string;
}

const en: PageText = {
  languageName: 'English',
  sandbox: 'Sandbox: no real funds',
  amount: 'Amount',
  sendAnyAmountOf: 'Send any amount of',
  on: (network) => `on ${network}`,
  tokenContract: 'Token contract',
  tokenContracts: { solana: 'Token mint' },
  sendTo: (symbol, network) => `Send ${symbol} on ${network} to`,
  address: 'Payment address',
  copyAddress: 'Copy address',
  copied: 'Copied',
  pressToCopy: 'Selected: press Ctrl+C or ⌘C to copy',
  qrLabel: 'QR code of the payment request',
  scanHint: 'Scan with a wallet app',
  scanHints: { solana: 'Scan with a Solana Pay wallet (Phantom, Solflare, Backpack…): it fills in the token and amount. Any other Solana wallet can send to the address.' },
  invoiceMessage: (publicId) => `Invoice ${publicId}`,
  openInWallet: 'Open in wallet',
  payWithBrowserWallet: 'Pay with browser wallet',
  walletSent: 'Transaction sent:',
  walletFailed: 'The wallet did not send the payment:',
  received: 'Received',
  remaining: 'Remaining',
  expires: 'Expires',
  timeLeft: 'left',
  receipt: 'Receipt',
  amountReceived: 'Amount received',
  transaction: 'Transaction',
  viewOnExplorer: 'View on explorer',
  paidAt: 'Paid at',
  payWithOneOf: (amount) => `Pay ${amount} with one of`,
  chooseNetwork: 'Choose a network',
  backTo: (name) => `Back to ${name}`,
  notFoundTitle: 'Payment not found',
  notFoundText: 'Check the link you were given, or ask the merchant for a new one.',
  pageTitle: (name) => `Pay ${name}`,
  titles: {
    preparing: 'Preparing the payment address…',
    awaiting: 'Waiting for payment',
    awaitingDeposit: 'Open for payments',
    partial: 'Partly paid',
    funded: 'Payment received. Thank you!',
    settled: 'Payment complete',
    cancelled: 'Closed: this checkout was cancelled by the merchant. Do not send funds.',
    blocked: 'Closed: this checkout was cancelled. Do not send funds.',
    expired: 'Closed: this checkout has expired. Do not send funds.',
    paused: 'Closed: this address is paused. Do not send funds.',
    elsewhere: 'Closed: this invoice was paid with another option. Do not send funds here.',
    review: 'Closed: this payment is under review.',
  },
  details: {
    preparing: 'This takes a few seconds; the page updates by itself.',
    awaiting: 'Send exactly the amount shown to the address below. This page updates by itself.',
    awaitingDeposit: 'Any amount sent to this address is credited to the merchant.',
    partial: 'Part of the payment has arrived. Send the remaining amount to the same address.',
    funded: 'Your payment is confirmed. You can close this page.',
    settled: 'Your payment is confirmed and the invoice is closed.',
    cancelled: 'Anything sent now will not pay for this order. Ask the merchant for a new link.',
    blocked: 'Anything sent now will not pay for this order.',
    expired: 'The time to pay is over. Ask the merchant for a new payment link.',
    paused: 'The merchant has paused this address. Payments sent now are not credited until it reopens.',
    elsewhere: 'The payment arrived through another network or token.',
    review: 'The merchant is checking this payment. Do not send more funds.',
  },
  languageSwitch: 'Language',
};

const ru: PageText = {
  languageName: 'Русский',
  sandbox: 'Тестовый режим: без реальных средств',
  amount: 'Сумма',
  sendAnyAmountOf: 'Отправьте любую сумму в',
  on: (network) => `в сети ${network}`,
  tokenContract: 'Контракт токена',
  tokenContracts: { solana: 'Адрес токена (mint)' },
  sendTo: (symbol, network) => `Отправьте ${symbol} в сети ${network} на адрес`,
  address: 'Адрес для оплаты',
  copyAddress: 'Скопировать адрес',
  copied: 'Скопировано',
  pressToCopy: 'Выделено: нажмите Ctrl+C или ⌘C, чтобы скопировать',
  qrLabel: 'QR-код запроса на оплату',
  scanHint: 'Отсканируйте приложением кошелька',
  scanHints: { solana: 'Отсканируйте кошельком с Solana Pay (Phantom, Solflare, Backpack…): токен и сумма подставятся сами. Из другого кошелька Solana отправьте на адрес.' },
  invoiceMessage: (publicId) => `Счёт ${publicId}`,
  openInWallet: 'Открыть в кошельке',
  payWithBrowserWallet: 'Оплатить кошельком браузера',
  walletSent: 'Транзакция отправлена:',
  walletFailed: 'Кошелёк не отправил платёж:',
  received: 'Получено',
  remaining: 'Осталось оплатить',
  expires: 'Действует до',
  timeLeft: 'осталось',
  receipt: 'Квитанция',
  amountReceived: 'Получено',
  transaction: 'Транзакция',
  viewOnExplorer: 'Открыть в обозревателе',
  paidAt: 'Оплачено',
  payWithOneOf: (amount) => `Оплатите ${amount} одним из способов`,
  chooseNetwork: 'Выберите сеть',
  backTo: (name) => `Вернуться в ${name}`,
  notFoundTitle: 'Платёж не найден',
  notFoundText: 'Проверьте полученную ссылку или попросите у продавца новую.',
  pageTitle: (name) => `Оплата: ${name}`,
  titles: {
    preparing: 'Готовим адрес для оплаты…',
    awaiting: 'Ожидаем оплату',
    awaitingDeposit: 'Приём платежей открыт',
    partial: 'Оплачено частично',
    funded: 'Платёж получен. Спасибо!',
    settled: 'Оплата завершена',
    cancelled: 'Закрыто: продавец отменил этот счёт. Не отправляйте средства.',
    blocked: 'Закрыто: этот счёт отменён. Не отправляйте средства.',
    expired: 'Закрыто: срок оплаты истёк. Не отправляйте средства.',
    paused: 'Закрыто: приём на этот адрес приостановлен. Не отправляйте средства.',
    elsewhere: 'Закрыто: счёт оплачен другим способом. Не отправляйте сюда средства.',
    review: 'Закрыто: платёж на проверке.',
  },
  details: {
    preparing: 'Это займёт несколько секунд; страница обновится сама.',
    awaiting: 'Отправьте точно указанную сумму на адрес ниже. Страница обновляется сама.',
    awaitingDeposit: 'Любая сумма, отправленная на этот адрес, зачисляется продавцу.',
    partial: 'Часть платежа получена. Отправьте оставшуюся сумму на тот же адрес.',
    funded: 'Платёж подтверждён. Страницу можно закрыть.',
    settled: 'Платёж подтверждён, счёт закрыт.',
    cancelled: 'Отправленное сейчас не оплатит этот заказ. Попросите у продавца новую ссылку.',
    blocked: 'Отправленное сейчас не оплатит этот заказ.',
    expired: 'Время на оплату вышло. Попросите у продавца новую ссылку.',
    paused: 'Продавец приостановил приём на этот адрес. Платежи не зачисляются, пока он закрыт.',
    elsewhere: 'Оплата пришла через другую сеть или токен.',
    review: 'Продавец проверяет этот платёж. Не отправляйте больше средств.',
  },
  languageSwitch: 'Язык',
};

export const TEXT: Readonly<Record<Lang, PageText>> = { en, ru };

export function isLang(value: unknown): value is Lang {
  return value === 'en' || value === 'ru';
}

/** The first of our languages the browser asks for, by quality; English when none. */
export function langFromAcceptLanguage(header: string | undefined): Lang {
  if (header === undefined) return 'en';
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
      return { primary: tag.trim().toLowerCase().split('-')[0], quality: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranked.map((entry) => entry.primary).find(isLang) ?? 'en';
}

/** "12,500.5" / "12 500,5": digits grouped by thousands in the language's way, the decimal string kept exact. */
export function groupDigits(decimal: string, lang: Lang): string {
  const [integer = '0', fraction] = decimal.split('.');
  const sign = integer.startsWith('-') ? '-' : '';
  const digits = sign === '' ? integer : integer.slice(1);
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, lang === 'ru' ? '\u00a0' : ',');
  const point = lang === 'ru' ? ',' : '.';
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}${point}${fraction}`;
}
