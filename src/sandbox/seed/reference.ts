import type { Db } from '../db/openDatabase.js';

const CURRENCIES: [string, string, string, number][] = [
  ['RON', 'Romanian leu', 'lei', 2],
  ['EUR', 'Euro', '€', 2],
  ['USD', 'US dollar', '$', 2],
  ['GBP', 'Pound sterling', '£', 2],
  ['HUF', 'Hungarian forint', 'Ft', 2],
  ['BGN', 'Bulgarian lev', 'лв', 2],
  ['PLN', 'Polish złoty', 'zł', 2],
  ['CZK', 'Czech koruna', 'Kč', 2],
  ['CHF', 'Swiss franc', 'CHF', 2],
  ['MDL', 'Moldovan leu', 'L', 2],
];

const LANGUAGES: [string, string][] = [
  ['ro', 'Română'],
  ['en', 'English'],
  ['hu', 'Magyar'],
  ['bg', 'Български'],
  ['de', 'Deutsch'],
  ['fr', 'Français'],
  ['it', 'Italiano'],
  ['es', 'Español'],
  ['pl', 'Polski'],
];

const COUNTRIES: [string, string, boolean][] = [
  ['RO', 'Romania', true],
  ['MD', 'Moldova', false],
  ['BG', 'Bulgaria', true],
  ['HU', 'Hungary', true],
  ['AT', 'Austria', true],
  ['BE', 'Belgium', true],
  ['HR', 'Croatia', true],
  ['CY', 'Cyprus', true],
  ['CZ', 'Czechia', true],
  ['DK', 'Denmark', true],
  ['EE', 'Estonia', true],
  ['FI', 'Finland', true],
  ['FR', 'France', true],
  ['DE', 'Germany', true],
  ['GR', 'Greece', true],
  ['IE', 'Ireland', true],
  ['IT', 'Italy', true],
  ['LV', 'Latvia', true],
  ['LT', 'Lithuania', true],
  ['LU', 'Luxembourg', true],
  ['MT', 'Malta', true],
  ['NL', 'Netherlands', true],
  ['PL', 'Poland', true],
  ['PT', 'Portugal', true],
  ['SK', 'Slovakia', true],
  ['SI', 'Slovenia', true],
  ['ES', 'Spain', true],
  ['SE', 'Sweden', true],
  ['GB', 'United Kingdom', false],
  ['US', 'United States', false],
  ['UA', 'Ukraine', false],
  ['RS', 'Serbia', false],
  ['TR', 'Türkiye', false],
  ['CH', 'Switzerland', false],
];

/** Currencies, languages and countries: shared by all companies. */
export function seedReference(db: Db): void {
  const cur = db.prepare('INSERT INTO currencies (code, name, symbol, decimals) VALUES (?, ?, ?, ?)');
  for (const c of CURRENCIES) cur.run(...c);
  const lang = db.prepare('INSERT INTO languages (code, name) VALUES (?, ?)');
  for (const l of LANGUAGES) lang.run(...l);
  const country = db.prepare('INSERT INTO countries (code, name, eu) VALUES (?, ?, ?)');
  for (const [code, name, eu] of COUNTRIES) country.run(code, name, eu ? 1 : 0);
}
