/** Where the emulated API and the sandbox's control plane live. */
export const API_PREFIX = '/v1';
export const CONTROL_PREFIX = '/__sandbox';
