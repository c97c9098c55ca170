from enum import StrEnum


class TemplateCategoryRequest(StrEnum):
    AUTHENTICATION = "AUTHENTICATION"
    MARKETING = "MARKETING"
    UTILITY = "UTILITY"

    def __str__(self) -> str:
        return str(self.value)
