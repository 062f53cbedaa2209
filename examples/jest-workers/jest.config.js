// Parallel test workers on one sandbox, with Jest (README, "Parallel test workers").
// ES modules: run with NODE_OPTIONS=--experimental-vm-modules, and no transform (Jest's ESM support).
export default {
  globalSetup: './jest.global-setup.mjs',
  globalTeardown: './jest.global-teardown.mjs',
  setupFilesAfterEnv: ['./jest.worker-setup.mjs'],
  maxWorkers: 4,
  transform: {},
};
