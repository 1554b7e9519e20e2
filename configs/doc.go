// Package configs carries the device configurations (one YAML file per
// device, embedded in the binary) and resolves a device by name or by the
// path of a user's own YAML file.
package configs
