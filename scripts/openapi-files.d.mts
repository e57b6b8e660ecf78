// Types of scripts/openapi-files.mjs, for the test that checks the committed files.
export declare const DOCUMENT_FILE: string;
export declare const SCHEMA_FILE: string;
export declare const DOCUMENT_ENV: Readonly<Record<string, string>>;
export declare function documentText(document: unknown): string;
export declare function clientTypes(document: unknown): Promise<string>;
