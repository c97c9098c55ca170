from enum import StrEnum


class TemplateParameterFormatRequest(StrEnum):
    NAMED = "NAMED"
    POSITIONAL = "POSITIONAL"

    def __str__(self) -> str:
        return str(self.value)
