/**
 * A route's shape, its parameter names left out (`/things/:/parts/:`): two routes of one shape name the
 * same resource, whatever they call their ids (`/things/:thingId` and `/things/:id`).
 */
export const shapeOf = (url: string) => url.replace(/:[^/]+/g, ':');
