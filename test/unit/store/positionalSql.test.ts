import { describe, expect, it } from 'vitest';
import { positionalSql } from '../../../src/store/sql/positionalSql.js';

describe('positionalSql', () => {
  it('numbers ? in order, leaving quoted text and comments alone', () => {
    expect(
      positionalSql(`SELECT '?', "a?b", x ->> '$[0]' FROM t -- why?\nWHERE a = ? AND b = ?::jsonb`),
    ).toEqual({
      text: `SELECT '?', "a?b", x ->> '$[0]' FROM t -- why?\nWHERE a = $1 AND b = $2::jsonb`,
      names: null,
    });
  });

  it('gives a name one number however often it is used, and keeps a doubled quote inside a string', () => {
    expect(positionalSql(`UPDATE t SET a = @a, b = 'it''s @b' WHERE @id = id OR @a IS NULL`)).toEqual({
      text: `UPDATE t SET a = $1, b = 'it''s @b' WHERE $2 = id OR $1 IS NULL`,
      names: ['a', 'id'],
    });
  });

  it('refuses a statement that mixes both kinds', () => {
    expect(() => positionalSql('SELECT ? WHERE @a')).toThrow('mixes ? and @name');
  });
});
