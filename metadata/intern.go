package metadata

// intern returns b as a string, without allocating for the values most
// records share: checksum algorithms and types, the storage class and the
// usual content types. A listing decodes a thousand records per page; their
// common fields would otherwise cost one allocation each. The switch on
// string(b) does not allocate.
func intern(b []byte) string {
	switch string(b) {
	case "CRC64NVME":
		return "CRC64NVME"
	case "CRC32":
		return "CRC32"
	case "CRC32C":
		return "CRC32C"
	case "SHA1":
		return "SHA1"
	case "SHA256":
		return "SHA256"
	case "FULL_OBJECT":
		return "FULL_OBJECT"
	case "COMPOSITE":
		return "COMPOSITE"
	case "STANDARD":
		return "STANDARD"
	case "application/octet-stream":
		return "application/octet-stream"
	case "binary/octet-stream":
		return "binary/octet-stream"
	case "text/plain":
		return "text/plain"
	case "text/plain; charset=utf-8":
		return "text/plain; charset=utf-8"
	case "application/json":
		return "application/json"
	case "application/xml":
		return "application/xml"
	}
	return string(b)
}
