/**
 * A repeatable commander option (`--param a --param b`): commander hands each value with the ones collected so
 * far, and the option's value is all of them in order. Shared by the operator CLI and `runway`.
 */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
