// The Swift API re-exports the config layer's shared types (ErrorCode, Diagnostic, ConfigError,
// SourceLocation, ConfigFormat, ConfigLimits) so hosts import only `ControllerReg`.
@_exported import ControllerRegConfig
