/** Where the Electron binary is, without triggering its download-on-require; undefined when absent. */
export declare function electronBinary(): string | undefined;
