import QRCode from 'qrcode';
import { addressCodec, type ChainFamily, type PaymentRequest } from '../chains/index.js';

/**
 * The wallet payment request a phone wallet scans or opens (issue 12), in the
 * family's scheme (its address codec). `amount` is in base units, null when
 * the payer chooses it (deposits).
 */
export function paymentUri(option: PaymentRequest & { readonly family: ChainFamily }): string {
  return addressCodec(option.family).paymentUri(option);
}

/** Quiet zone around the code, in modules: the 4 that ISO/IEC 18004 asks for. */
const QUIET = 4;

/**
 * The QR code of `text` as one SVG path, built on the server: no script, no
 * image request, a few kilobytes. Runs of dark modules in a row become one
 * rectangle, which keeps the path short.
 */
export function qrSvg(text: string, label: string): string {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  let path = '';
  for (let row = 0; row < size; row += 1) {
    let column = 0;
    while (column < size) {
      if (modules.get(row, column) === 0) {
        column += 1;
        continue;
      }
      const start = column;
      while (column < size && modules.get(row, column) !== 0) column += 1;
      path += `M${start + QUIET} ${row + QUIET}h${column - start}v1h-${column - start}z`;
    }
  }
  const side = size + 2 * QUIET;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" role="img" aria-label="${label}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`
  );
}
