// A body that starts with a byte order mark (U+FEFF), as spreadsheet programs write "CSV UTF-8"
// and some editors write JSON: the mark is not part of the data. RFC 8259 lets a JSON parser
// ignore it; left in, it made JSON.parse refuse the body and a CSV's first field read `\uFEFF12`,
// an integer PostgreSQL refused with the mark invisible in the message.

/** The text without a leading byte order mark. */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
