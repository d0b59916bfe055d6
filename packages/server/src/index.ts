export type { APIRequest, APIResponse, UserInfo } from "./api-request.js";
export { APIServer, defaultMaxRequestBodyBytes, type APIServerOptions } from "./api-server.js";
