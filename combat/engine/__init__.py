"""The pure rules engine. No Django, Channels or vtt import, ever."""
