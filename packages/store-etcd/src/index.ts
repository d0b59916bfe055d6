/** EtcdStore: see the package README. @module */
export {};
