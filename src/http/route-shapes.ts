/**
 * A route's shape, its parameter names left out (`/orgs/:/projects/:`): two routes of one shape name the
 * same resource, whatever they call their ids (`/programs/:programId` and `/programs/:id`).
 */
export const shapeOf = (url: string) => url.replace(/:[^/]+/g, ':');
