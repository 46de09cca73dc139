/** C0 and C1 controls, DEL, lone surrogates, line/paragraph separators, bidi controls, U+FFFD. */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text from an input file made safe to show in a terminal, a log line or a reject: control and
 * other invisible characters become `\xNN` / `\uNNNN` escapes (binary garbage never reaches a
 * terminal raw), and text longer than `max` characters is cut, saying how much was left out.
 */
export function printable(text: string, max = 80): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  const escaped = cut.replace(UNPRINTABLE, (ch) => {
    const code = ch.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return cut === text ? escaped : `${escaped}… (${text.length} characters)`;
}

/** True when the text holds a character that `printable` would escape. */
export function hasUnprintable(text: string): boolean {
  // Most keys are plain ASCII: a look at each character is several times cheaper than the pattern.
  let plain = true;
  for (let i = 0; i < text.length && plain; i++) {
    const code = text.charCodeAt(i);
    plain = code >= 0x20 && code < 0x7f;
  }
  if (plain) return false;
  UNPRINTABLE.lastIndex = 0;
  const found = UNPRINTABLE.test(text);
  UNPRINTABLE.lastIndex = 0;
  return found;
}
