/** Server-side apply, managed fields and patches: see the package README. @module */
export {};
