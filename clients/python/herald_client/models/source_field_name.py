from enum import StrEnum


class SourceFieldName(StrEnum):
    MESSAGES = "messages"
    SMB_MESSAGE_ECHOES = "smb_message_echoes"
    STANDBY = "standby"

    def __str__(self) -> str:
        return str(self.value)
