from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.contact_resource import ContactResource
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    recipient: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/contacts/{recipient}/opt-out".format(
            recipient=quote(str(recipient), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ContactResource | Problem | None:
    if response.status_code == 200:
        response_200 = ContactResource.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[ContactResource | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> Response[ContactResource | Problem]:
    """Records the organization's own opt-out: marketing templates to this person are refused (`422
    recipient_opted_out`) until an opt-in, and a `contact.preferences` event is sent. No body.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContactResource | Problem]
    """

    kwargs = _get_kwargs(
        recipient=recipient,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> ContactResource | Problem | None:
    """Records the organization's own opt-out: marketing templates to this person are refused (`422
    recipient_opted_out`) until an opt-in, and a `contact.preferences` event is sent. No body.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContactResource | Problem
    """

    return sync_detailed(
        recipient=recipient,
        client=client,
    ).parsed


async def asyncio_detailed(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> Response[ContactResource | Problem]:
    """Records the organization's own opt-out: marketing templates to this person are refused (`422
    recipient_opted_out`) until an opt-in, and a `contact.preferences` event is sent. No body.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContactResource | Problem]
    """

    kwargs = _get_kwargs(
        recipient=recipient,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> ContactResource | Problem | None:
    """Records the organization's own opt-out: marketing templates to this person are refused (`422
    recipient_opted_out`) until an opt-in, and a `contact.preferences` event is sent. No body.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContactResource | Problem
    """

    return (
        await asyncio_detailed(
            recipient=recipient,
            client=client,
        )
    ).parsed
