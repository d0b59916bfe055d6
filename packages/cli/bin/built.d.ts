/** True when every workspace package's build (`tsc -b`) is newer than its sources and config. */
export declare function builtAfterSources(): boolean;
