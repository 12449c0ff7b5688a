// @hey-api/openapi-ts configuration of the TypeScript SDK that `make
// clients` generates from docs/openapi.yaml (scripts/clients.sh runs it in
// .data/clients/ts, next to this folder's other files). The input path is
// given on the command line (-i). Imports end in .js, as the smoke tests'
// moduleResolution nodenext wants.
export default {
  output: { path: "hey", module: { extension: ".js" } },
  plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
};
