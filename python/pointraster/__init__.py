"""pointraster: point-cloud files, conversion and the viewer window from Python."""
from ._files import ViewHandle, convert, info, read, view

__all__ = ["read", "info", "convert", "view", "ViewHandle"]
