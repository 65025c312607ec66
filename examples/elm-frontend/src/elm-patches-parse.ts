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
 *
 * `fused-*` (andMap, choice, andThen, map, or, withLocation, many, string, fromCore, maybe): each of elm-syntax's Combine
 * combinators, given a parser state, built an elm/parser parser out of elm/parser's own
 * combinators (`andThen` with a callback closure, `map` with `Tuple.mapSecond`, `oneOf` over a list
 * of every alternative built in advance, `loop` over a `oneOf` per turn), and that parser was run
 * once: every step of the parse allocated a tree of closures and wrappers to run it. The
 * replacements (our code) make one elm/parser parser per state that runs its parts directly and
 * answers what the built one answered: the same `Good`/`Bad` steps, commitment (`p1 || p2`),
 * problems bag (`Append` in the same order), locations, items and state; an alternative of
 * `choice`/`or` is built only when it is tried. elm-patches-fused.test.ts compares each with the
 * unedited combinator over every pair of outcomes. 1,338 M → 1,037 M (−22.5 %) with the first
 * seven; → 969 M with string (its token parser built once, not per state), fromCore and maybe
 * (string and fromCore pair the state with what an elm/parser parser read: `mep_withState`).
 *
 * `direct-run`: even fused, running a Combine parser on a state built an elm/parser parser for
 * that state (a closure and a `Parser` object) only to run it once. A parser made by an edited
 * combinator (`mep_parser`) also carries its run as a plain function of the state and the parser
 * state (`r`), and the edited combinators run their parts through it when the part has one
 * (`mep_run`; a parser made elsewhere in elm-syntax is run as before, through `a`). The parser's
 * `a` stays, doing the same, for every other caller. `fused-succeed` (succeed, withState),
 * `fused-sequence` (continueWith, ignore: one runs after the other and the result keeps one
 * value, where they were an andMap of a map of `always`), `fused-modify-state` and `fused-node`
 * (elm-syntax's `Node.parser`, which for every node of the syntax tree built four parsers after
 * reading where it starts, and now reads the start and the end around its parser's run) are made
 * the same way. The showcase's build: 968 M → 723 M instructions (−25 %).
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
  return mep_parser(function (state, s0) {
    if (built === undefined) built = thunk(_Utils_Tuple0);
    return mep_run(built, state, s0);
  });
};
`,
  },
  {
    name: 'direct-run',
    before: 'var $stil4m$elm_syntax$Combine$Parser = function (a) {',
    code: `function mep_parser(run) {
  var parser = $stil4m$elm_syntax$Combine$Parser(function (state) {
    return $elm$parser$Parser$Advanced$Parser(function (s0) {
      return run(state, s0);
    });
  });
  parser.r = run;
  return parser;
}
function mep_run(parser, state, s0) {
  var run = parser.r;
  return run !== undefined ? run(state, s0) : parser.a(state).a(s0);
}
function mep_good(committed, value, s) {
  return {$: 'Good', a: committed, b: value, c: s};
}
function mep_bad(committed, problems) {
  return {$: 'Bad', a: committed, b: problems};
}
function mep_sequence(first, second, keepFirst) {
  return mep_parser(function (state, s0) {
    var one = mep_run(first, state, s0);
    if (one.$ === 'Bad') return mep_bad(one.a, one.b);
    var two = mep_run(second, one.b.a, one.c);
    if (two.$ === 'Bad') return mep_bad(one.a || two.a, two.b);
    return mep_good(one.a || two.a, _Utils_Tuple2(two.b.a, keepFirst ? one.b.b : two.b.b), two.c);
  });
}
`,
  },
  {
    name: 'fused-combinators',
    before: 'var $stil4m$elm_syntax$Elm$Parser$State$getComments = function (_v0) {',
    code: `$stil4m$elm_syntax$Combine$andMap = F2(function (right, left) {
  return mep_parser(function (state, s0) {
    var first = mep_run(left, state, s0);
    if (first.$ === 'Bad') return mep_bad(first.a, first.b);
    var second = mep_run(right, first.b.a, first.c);
    if (second.$ === 'Bad') return mep_bad(first.a || second.a, second.b);
    return mep_good(first.a || second.a, _Utils_Tuple2(second.b.a, first.b.b(second.b.b)), second.c);
  });
});
`,
  },
  {
    name: 'fused-choice',
    before: 'var $stil4m$elm_syntax$Elm$Syntax$Declaration$Destructuring = F2(',
    code: `$stil4m$elm_syntax$Combine$choice = function (xs) {
  return mep_parser(function (state, s0) {
    var bag = $elm$parser$Parser$Advanced$Empty;
    for (var rest = xs; rest.b; rest = rest.b) {
      var step = mep_run(rest.a, state, s0);
      if (step.$ === 'Good' || step.a) return step;
      bag = A2($elm$parser$Parser$Advanced$Append, bag, step.b);
    }
    return mep_bad(false, bag);
  });
};
`,
  },
  {
    name: 'fused-and-then',
    before: 'var $stil4m$elm_syntax$Combine$backtrackable = function (_v0) {',
    code: `$stil4m$elm_syntax$Combine$andThen = F2(function (f, parser) {
  return mep_parser(function (state, s0) {
    var first = mep_run(parser, state, s0);
    if (first.$ === 'Bad') return mep_bad(first.a, first.b);
    var second = mep_run(f(first.b.b), first.b.a, first.c);
    if (second.$ === 'Bad') return mep_bad(first.a || second.a, second.b);
    return mep_good(first.a || second.a, second.b, second.c);
  });
});
`,
  },
  {
    name: 'fused-map',
    before: 'var $stil4m$elm_syntax$Combine$continueWith = F2(',
    code: `$stil4m$elm_syntax$Combine$map = F2(function (f, parser) {
  return mep_parser(function (state, s0) {
    var step = mep_run(parser, state, s0);
    if (step.$ === 'Bad') return mep_bad(step.a, step.b);
    return mep_good(step.a, _Utils_Tuple2(step.b.a, f(step.b.b)), step.c);
  });
});
`,
  },
  {
    name: 'fused-or',
    before: 'var $elm$core$String$any = _String_any;',
    code: `$stil4m$elm_syntax$Combine$or = F2(function (left, right) {
  return mep_parser(function (state, s0) {
    var first = mep_run(left, state, s0);
    if (first.$ === 'Good' || first.a) return first;
    var second = mep_run(right, state, s0);
    if (second.$ === 'Good' || second.a) return second;
    return mep_bad(false, A2($elm$parser$Parser$Advanced$Append, A2($elm$parser$Parser$Advanced$Append, $elm$parser$Parser$Advanced$Empty, first.b), second.b));
  });
});
`,
  },
  {
    name: 'fused-location',
    before: 'var $stil4m$elm_syntax$Elm$Parser$Node$parser = function (p) {',
    code: `$stil4m$elm_syntax$Combine$withLocation = function (f) {
  return mep_parser(function (state, s0) {
    var step = mep_run(f({column: s0.col, line: s0.row}), state, s0);
    if (step.$ === 'Bad') return mep_bad(step.a, step.b);
    return mep_good(step.a, step.b, step.c);
  });
};
`,
  },
  {
    name: 'fused-many',
    before: 'var $stil4m$elm_syntax$Combine$many1 = function (p) {',
    code: `$stil4m$elm_syntax$Combine$many = function (parser) {
  return mep_parser(function (state, s0) {
    var committed = false, current = state, items = _List_Nil, s = s0;
    for (;;) {
      var step = mep_run(parser, current, s);
      if (step.$ === 'Bad') {
        if (step.a) return mep_bad(true, step.b);
        return mep_good(committed, _Utils_Tuple2(current, $elm$core$List$reverse(items)), s);
      }
      committed = committed || step.a;
      current = step.b.a;
      items = A2($elm$core$List$cons, step.b.b, items);
      s = step.c;
    }
  });
};
`,
  },
  {
    name: 'fused-string',
    before: "var $stil4m$elm_syntax$Elm$Parser$Tokens$caseToken = $stil4m$elm_syntax$Combine$string('case');",
    code: `var mep_withState = function (run) {
  return mep_parser(function (state, s0) {
    var step = run(s0);
    if (step.$ === 'Bad') return mep_bad(step.a, step.b);
    return mep_good(step.a, _Utils_Tuple2(state, step.b), step.c);
  });
};
$stil4m$elm_syntax$Combine$string = function (s) {
  return mep_withState($elm$parser$Parser$getChompedString($elm$parser$Parser$token(s)).a);
};
`,
  },
  {
    name: 'fused-from-core',
    before: 'var $stil4m$elm_syntax$Combine$Char$satisfy = function (pred) {',
    code: `$stil4m$elm_syntax$Combine$fromCore = function (core) {
  return mep_withState(core.a);
};
`,
  },
  {
    name: 'fused-maybe',
    before: 'var $stil4m$elm_syntax$Elm$Parser$Layout$maybeAroundBothSides = function (x) {',
    code: `$stil4m$elm_syntax$Combine$maybe = function (parser) {
  return mep_parser(function (state, s0) {
    var step = mep_run(parser, state, s0);
    if (step.$ === 'Good') return mep_good(step.a, _Utils_Tuple2(step.b.a, $elm$core$Maybe$Just(step.b.b)), step.c);
    if (step.a) return mep_bad(true, step.b);
    return mep_good(false, _Utils_Tuple2(state, $elm$core$Maybe$Nothing), s0);
  });
};
`,
  },
  {
    name: 'fused-succeed',
    before: 'var $stil4m$elm_syntax$Elm$Parser$File$collectComments = ',
    code: `$stil4m$elm_syntax$Combine$succeed = function (res) {
  return mep_parser(function (state, s0) {
    return mep_good(false, _Utils_Tuple2(state, res), s0);
  });
};
$stil4m$elm_syntax$Combine$withState = function (f) {
  return mep_parser(function (state, s0) {
    return mep_run(f(state), state, s0);
  });
};
`,
  },
  {
    name: 'fused-sequence',
    before: 'var $stil4m$elm_syntax$Combine$or = F2(',
    code: `$stil4m$elm_syntax$Combine$continueWith = F2(function (target, dropped) {
  return mep_sequence(dropped, target, false);
});
$stil4m$elm_syntax$Combine$ignore = F2(function (dropped, target) {
  return mep_sequence(target, dropped, true);
});
`,
  },
  {
    name: 'fused-node',
    before: 'var $stil4m$elm_syntax$Elm$Parser$Declarations$charLiteralExpression = ',
    code: `$stil4m$elm_syntax$Elm$Parser$Node$parser = function (p) {
  return mep_parser(function (state, s0) {
    var start = {column: s0.col, line: s0.row};
    var step = mep_run(p, state, s0);
    if (step.$ === 'Bad') return mep_bad(step.a, step.b);
    var s1 = step.c, at = $stil4m$elm_syntax$Elm$Parser$Node$asPointerLocation;
    var range = {end: at({column: s1.col, line: s1.row}), start: at(start)};
    return mep_good(step.a, _Utils_Tuple2(step.b.a, A2($stil4m$elm_syntax$Elm$Syntax$Node$Node, range, step.b.b)), s1);
  });
};
`,
  },
  {
    name: 'fused-modify-state',
    before: 'var $stil4m$elm_syntax$Elm$Parser$Comments$addCommentToState = function (p) {',
    code: `$stil4m$elm_syntax$Combine$modifyState = function (f) {
  return mep_parser(function (state, s0) {
    return mep_good(false, _Utils_Tuple2(f(state), _Utils_Tuple0), s0);
  });
};
`,
  },
];
