/**
 * `Content-Disposition: attachment` for a file name of any script (RFC 6266): `filename*` carries
 * it in UTF-8, and `filename` an ASCII spelling of it for the clients that read only that one
 * (accents dropped, any other character outside printable ASCII as "_").
 */
export function attachment(filename: string): string {
  const ascii = filename
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\]/g, '_');
  // RFC 8187's attr-char leaves out ' ( ) * that encodeURIComponent keeps.
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
