// satisfiesRange: the range check weft doctor applies to the @weft/core ranges packages declare.
import { describe, expect, it } from 'vitest';

import { satisfiesRange } from '@weft/cli';

describe('satisfiesRange', () => {
  it.each([
    // exact
    ['0.1.0', '0.1.0', true],
    ['0.1.1', '0.1.0', false],
    ['0.1.0', '=0.1.0', true],
    ['0.1.0', 'v0.1.0', true],
    // caret: up to the next non-zero leading part
    ['1.4.2', '^1.2.3', true],
    ['2.0.0', '^1.2.3', false],
    ['1.2.2', '^1.2.3', false],
    ['0.1.4', '^0.1.0', true],
    ['0.2.0', '^0.1.0', false],
    ['0.0.3', '^0.0.3', true],
    ['0.0.4', '^0.0.3', false],
    ['0.9.0', '^0', true],
    ['1.0.0', '^0.x', false],
    // tilde: up to the next minor
    ['1.2.9', '~1.2.3', true],
    ['1.3.0', '~1.2.3', false],
    ['1.9.0', '~1', true],
    // comparators, joined by spaces
    ['0.1.0', '>=0.1.0', true],
    ['0.0.9', '>=0.1.0', false],
    ['0.5.0', '>=0.1.0 <1.0.0', true],
    ['1.0.0', '>=0.1.0 <1.0.0', false],
    ['1.0.0', '>= 0.1.0 < 1.0.0', false],
    ['1.2.3', '>1.2', false],
    ['1.3.0', '>1.2', true],
    ['1.2.9', '<=1.2', true],
    ['1.3.0', '<=1.2', false],
    ['1.1.9', '<1.2', true],
    // wildcards and x-ranges
    ['7.0.0', '*', true],
    ['7.0.0', '', true],
    ['0.1.7', '0.1.x', true],
    ['0.2.0', '0.1.x', false],
    ['0.1.7', '0.1', true],
    ['1.0.0', '0.x', false],
    // hyphen ranges and alternatives
    ['1.5.0', '1.2.3 - 2.0.0', true],
    ['2.0.1', '1.2.3 - 2.0.0', false],
    ['0.1.0', '^0.2.0 || ^0.1.0', true],
    ['0.3.0', '^0.2.0 || ^0.1.0', false],
    // prereleases match only a comparator of the same release line naming a prerelease
    ['1.3.0-beta.1', '^1.2.0', false],
    ['1.2.3-beta.2', '^1.2.3-beta.1', true],
    ['1.2.3-beta.1', '^1.2.3-beta.2', false],
    ['1.2.3-alpha', '>=1.2.3-alpha.1', false],
    ['2.0.0-rc.1', '>1', false],
    ['0.1.0', '*', true],
  ] as const)('%s satisfies "%s": %s', (version, range, expected) => {
    expect(satisfiesRange(version, range)).toBe(expected);
  });

  it.each(['workspace:*', 'file:../core', 'npm:@weft/core@^0.1.0', 'github:weft/core', 'latest', '^1.2.3.4'])('does not understand "%s"', (range) => {
    expect(satisfiesRange('0.1.0', range)).toBeUndefined();
  });

  it('does not understand an invalid version', () => {
    expect(satisfiesRange('one', '*')).toBeUndefined();
  });
});
