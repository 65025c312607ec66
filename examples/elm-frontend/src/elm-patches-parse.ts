/**
 * Edits of morphir-elm's worker (see elm-patches.ts for how they are applied) for the cost of
 * parsing: elm-syntax's parser, in the Elm runtime's development mode that morphir-elm ships, is
 * most of a small project's compile (the showcase's 2.9 KB of sources: about 60 % of the build).
 * Counted with callgrind on the native engine (the showcase built after the warm-up, 1,450 M
 * instructions unedited): 1,343 M with both edits.
 *
 * `char-equality`: in development mode a Char is a `String` object (`new String(c)`), and the
 * parser compares each character it reads with `==`: the runtime's structural equality, which for
 * two objects allocates a work stack and enumerates the object's keys (a String object's are its
 * indices). The replacement answers at once where the original's answer is known without that
 * walk: the same reference (equal), a primitive on the left (unequal: the original returns false
 * for any primitive that is not `===`; a function still goes to the original, which refuses to
 * compare functions), and two String objects: equal when the right one's text starts with the left
 * one's, the original's index-by-index answer. Anything else is asked of the original.
 * 1,450 M → 1,411 M.
 *
 * `memo-lazy`: elm-syntax's `Combine.lazy` runs its thunk each time the lazy parser runs, and the
 * thunk builds the parser again (the grammar's recursive rules: expressions, patterns, types,
 * comments). The thunk is a pure Elm function of nothing: the replacement runs it the first time
 * and keeps the parser it returned, per lazy parser (those of the grammar are top-level values,
 * so after the warm-up build their parsers are in the snapshot). 1,411 M → 1,343 M.
 */

import type { ElmPatch } from './elm-patches.ts';

/** The parse edits, in the order they are applied (each anchor occurs once in morphir-elm 2.82.0's worker). */
export const PARSE_PATCHES: readonly ElmPatch[] = [
  {
    name: 'char-equality',
    before: 'var _Utils_equal = F2(_Utils_eq);',
    code: `_Utils_eq = (function (structural) {
  return function (x, y) {
    if (x === y) return true;
    var kind = typeof x;
    if (kind !== 'object' && kind !== 'function') return false;
    if (x instanceof String && y instanceof String) {
      var left = x.valueOf(), right = y.valueOf();
      return right.length >= left.length && right.slice(0, left.length) === left;
    }
    return structural(x, y);
  };
})(_Utils_eq);
`,
  },
  {
    name: 'memo-lazy',
    before: "var $elm$parser$Parser$Nestable = {$: 'Nestable'};",
    code: `$stil4m$elm_syntax$Combine$lazy = function (thunk) {
  var built;
  return $stil4m$elm_syntax$Combine$Parser(function (state) {
    return $elm$parser$Parser$lazy(function () {
      if (built === undefined) built = thunk(_Utils_Tuple0);
      return built.a(state);
    });
  });
};
`,
  },
];
