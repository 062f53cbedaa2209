/** Text as XML character data or an attribute value (the JUnit reports): characters XML 1.0 cannot hold become `?`. */
export const xml = (text: string): string =>
  text
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/g, '?')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
