/** Moved: the example builds live in examples/testing/built.ts. */
export { REPO_ROOT, builtAvro, builtExample } from '../../testing/built.ts';
