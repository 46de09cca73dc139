import { iconvLite } from './iconvLite.js';

/** `utf-8`, `UTF8`, ...: validated as it is read, never converted. */
export function isUtf8Name(encoding: string): boolean {
  return /^utf-?8$/i.test(encoding.trim());
}

/** Whether iconv-lite knows the encoding and it keeps ASCII (and so line ends) as one byte each. */
export function isSupportedEncoding(encoding: string): boolean {
  if (isUtf8Name(encoding)) return true;
  if (!iconvLite().encodingExists(encoding)) return false;
  return iconvLite().encode('sku;q\r\n', encoding).equals(Buffer.from('sku;q\r\n', 'latin1'));
}
