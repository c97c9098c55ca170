from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.dry_run_resource import DryRunResource
from ...models.message_resource import MessageResource
from ...models.problem import Problem
from ...models.send_file_form import SendFileForm
from ...models.send_file_request import SendFileRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: SendFileRequest | SendFileForm | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["dry_run"] = dry_run

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/messages/send-file",
        "params": params,
    }

    if isinstance(body, SendFileRequest):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, SendFileForm):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DryRunResource | MessageResource | Problem | None:
    if response.status_code == 200:
        response_200 = DryRunResource.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = MessageResource.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DryRunResource | MessageResource | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SendFileRequest | SendFileForm | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DryRunResource | MessageResource | Problem]:
    """Send a file: a document (PDF), an image (JPEG, PNG) or a video (MP4, 3GPP) with an optional caption,
    or audio (AAC, AMR, MP3, MP4 audio, Ogg Opus) or a sticker (WebP) without one; only inside the
    24-hour
    service window.

     Multipart: parts `to`, `file` (its kind is judged from its bytes, never from its name or declared
    type; limits 100 MB for documents, 5 MB for images, 16 MB for videos and audio, 100 KB for static
    and
    500 KB for animated stickers, enforced while it streams in),
    `caption`, `from`, `client_reference`. JSON: `{ "to", "media_id" | "link", "type", "caption",
    "filename" }` for a file uploaded before (`POST /api/v1/media`; its kind is the upload's) or hosted
    elsewhere (`type` required).

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendFileRequest): `POST /api/v1/messages/send-file` with a JSON body: a file
            uploaded before or hosted elsewhere. Example: {'caption': 'Your invoice', 'media_id':
            'med_01JD0000000000000000000000', 'to': '+15551234567'}.
        body (SendFileForm): A multipart `send-file` form, for the reference (the server reads it
            as a stream).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DryRunResource | MessageResource | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SendFileRequest | SendFileForm | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> DryRunResource | MessageResource | Problem | None:
    """Send a file: a document (PDF), an image (JPEG, PNG) or a video (MP4, 3GPP) with an optional caption,
    or audio (AAC, AMR, MP3, MP4 audio, Ogg Opus) or a sticker (WebP) without one; only inside the
    24-hour
    service window.

     Multipart: parts `to`, `file` (its kind is judged from its bytes, never from its name or declared
    type; limits 100 MB for documents, 5 MB for images, 16 MB for videos and audio, 100 KB for static
    and
    500 KB for animated stickers, enforced while it streams in),
    `caption`, `from`, `client_reference`. JSON: `{ "to", "media_id" | "link", "type", "caption",
    "filename" }` for a file uploaded before (`POST /api/v1/media`; its kind is the upload's) or hosted
    elsewhere (`type` required).

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendFileRequest): `POST /api/v1/messages/send-file` with a JSON body: a file
            uploaded before or hosted elsewhere. Example: {'caption': 'Your invoice', 'media_id':
            'med_01JD0000000000000000000000', 'to': '+15551234567'}.
        body (SendFileForm): A multipart `send-file` form, for the reference (the server reads it
            as a stream).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DryRunResource | MessageResource | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SendFileRequest | SendFileForm | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DryRunResource | MessageResource | Problem]:
    """Send a file: a document (PDF), an image (JPEG, PNG) or a video (MP4, 3GPP) with an optional caption,
    or audio (AAC, AMR, MP3, MP4 audio, Ogg Opus) or a sticker (WebP) without one; only inside the
    24-hour
    service window.

     Multipart: parts `to`, `file` (its kind is judged from its bytes, never from its name or declared
    type; limits 100 MB for documents, 5 MB for images, 16 MB for videos and audio, 100 KB for static
    and
    500 KB for animated stickers, enforced while it streams in),
    `caption`, `from`, `client_reference`. JSON: `{ "to", "media_id" | "link", "type", "caption",
    "filename" }` for a file uploaded before (`POST /api/v1/media`; its kind is the upload's) or hosted
    elsewhere (`type` required).

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendFileRequest): `POST /api/v1/messages/send-file` with a JSON body: a file
            uploaded before or hosted elsewhere. Example: {'caption': 'Your invoice', 'media_id':
            'med_01JD0000000000000000000000', 'to': '+15551234567'}.
        body (SendFileForm): A multipart `send-file` form, for the reference (the server reads it
            as a stream).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DryRunResource | MessageResource | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SendFileRequest | SendFileForm | Unset = UNSET,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> DryRunResource | MessageResource | Problem | None:
    """Send a file: a document (PDF), an image (JPEG, PNG) or a video (MP4, 3GPP) with an optional caption,
    or audio (AAC, AMR, MP3, MP4 audio, Ogg Opus) or a sticker (WebP) without one; only inside the
    24-hour
    service window.

     Multipart: parts `to`, `file` (its kind is judged from its bytes, never from its name or declared
    type; limits 100 MB for documents, 5 MB for images, 16 MB for videos and audio, 100 KB for static
    and
    500 KB for animated stickers, enforced while it streams in),
    `caption`, `from`, `client_reference`. JSON: `{ "to", "media_id" | "link", "type", "caption",
    "filename" }` for a file uploaded before (`POST /api/v1/media`; its kind is the upload's) or hosted
    elsewhere (`type` required).

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendFileRequest): `POST /api/v1/messages/send-file` with a JSON body: a file
            uploaded before or hosted elsewhere. Example: {'caption': 'Your invoice', 'media_id':
            'med_01JD0000000000000000000000', 'to': '+15551234567'}.
        body (SendFileForm): A multipart `send-file` form, for the reference (the server reads it
            as a stream).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DryRunResource | MessageResource | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            dry_run=dry_run,
            idempotency_key=idempotency_key,
        )
    ).parsed
