// Issue 39's lookalike names, for the tests of every package that must refuse them (result, db, server):
// [what, the text, what the refusal says of it]. Genuine: the CPU model "AMD EPYC", the version "7.4.1".

/** Lookalikes of the genuine kind "AMD EPYC". */
export const LOOKALIKE_CPU_MODELS: [string, string, string][] = [
  ['Cyrillic Е and Р', 'AMD ЕРYC', 'mixes Latin letters with Cyrillic ones (U+0415 at 4)'],
  ['a Greek Alpha', 'ΑMD EPYC', 'mixes Latin letters with Greek ones (U+0391 at 0)'],
  [
    'a zero-width space',
    'AMD EP\u200bYC',
    'U+200B (an invisible, format or unassigned character) at 6: remove it',
  ],
  ['a soft hyphen', 'AMD EP\u00adYC', 'U+00AD (an invisible, format or unassigned character) at 6'],
  ['a BOM', '\ufeffAMD EPYC', 'U+FEFF (an invisible, format or unassigned character) at 0'],
  ['a no-break space', 'AMD\u00a0EPYC', 'U+00A0 (a space other than U+0020) at 3: write a plain space'],
  [
    'fullwidth letters',
    'ＡＭＤ EPYC',
    'U+FF21 at 0 is a compatibility form (fullwidth, ligature, superscript...) of "A": write "AMD EPYC"',
  ],
  ['a left-to-right mark', 'AMD EPYC\u200e', 'U+200E (an invisible, format or unassigned character) at 8'],
  ['a word joiner', 'AMD\u2060 EPYC', 'U+2060 (an invisible, format or unassigned character) at 3'],
  ['a thin space', 'AMD\u2009EPYC', 'U+2009 (a space other than U+0020) at 3'],
];

export const LOOKALIKE_VERSIONS: [string, string, string][] = [
  ['a zero-width space', '7.4.1\u200b', 'U+200B (an invisible, format or unassigned character) at 5'],
  [
    'fullwidth digits',
    '７.４.１',
    'U+FF17 at 0 is a compatibility form (fullwidth, ligature, superscript...) of "7": write "7.4.1"',
  ],
  ['a soft hyphen', '7.4\u00ad.1', 'U+00AD (an invisible, format or unassigned character) at 3'],
];
