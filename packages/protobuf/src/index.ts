export { hasProtobufCodec, protobufKinds } from "./codecs.js";
export { decodeEnvelope, encodeEnvelope, hasProtobufPrefix, protobufPrefix, type UnknownMessage } from "./envelope.js";
export { decodeProtobufObject, encodeProtobufObject, isProtobufMediaType, protobufMediaTypes, type DecodedProtobufObject } from "./protobuf-object.js";
