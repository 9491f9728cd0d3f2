@_exported import ControllerRegConfig
