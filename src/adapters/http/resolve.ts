/**
 * How routes reach the application: the use case of a class, built by the composition root
 * (with its ports) for each call. Routes name the use case they run and nothing else.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any constructor, whatever its parameters
export type Resolve = <T>(useCase: new (...args: any[]) => T) => T;
