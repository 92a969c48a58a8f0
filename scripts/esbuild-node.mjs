// What every bundle of ours shares (the service's dist/ and the compiled tests): one ES module
// per entry for node 20, our code bundled, the packages left as imports from node_modules,
// source maps linked.
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
};
