/**
 * Bench guest (issue 32): the GraphQL-from-IR backend an author would write (graphql-js,
 * prettier standalone, fflate; bench/guests/workloads/graphql-schema.ts), reporting each stage as
 * progress. Built by bench/author-workloads.bench.ts to wasm and process; never shipped.
 */
import { binaryArtifact, defineExtension, textArtifact } from '../../guest-pdk/src/index.ts';
import { graphqlFromIr } from './workloads/graphql-schema.ts';

export default defineExtension({
  info: { id: 'bench.graphql-backend', name: 'Bench GraphQL backend', version: '0.0.0' },
  backend: {
    targets: ['graphql'],
    irVersions: ['3'],
    async generate(params, ctx) {
      const out = await graphqlFromIr(params.ir, (stage) => ctx.progress('report', stage));
      ctx.progress('end', `${out.typeCount} GraphQL types`, 100);
      return { artifacts: [textArtifact('schema.graphql', out.schema), textArtifact('operations.graphql', out.operations), binaryArtifact('graphql.zip', out.zip)] };
    },
  },
});
