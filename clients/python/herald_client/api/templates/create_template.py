from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.template_create_request import TemplateCreateRequest
from ...models.template_resource import TemplateResource
from ...types import Response


def _get_kwargs(
    *,
    body: TemplateCreateRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/templates",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | TemplateResource | None:
    if response.status_code == 201:
        response_201 = TemplateResource.from_dict(response.json())

        return response_201

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
) -> Response[Problem | TemplateResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: TemplateCreateRequest,
) -> Response[Problem | TemplateResource]:
    """Submit a template for the network's review.

     The body is Meta's own `message_templates` body (`name`, `language`, `category`, `parameter_format`,
    `allow_category_change`, `components`) plus `from`, the sender whose business account gets it
    (default:
    the default sender). Every Meta rule is checked before the network: field errors name the path
    (`components[1].buttons[0].url`). A media header's sample is an upload (`example.media_id`) or the
    network's handle (`example.header_handle`). Answers `201` with Herald's copy, usually `PENDING`; the
    review's outcome arrives as a status change.

    Args:
        body (TemplateCreateRequest): A template to submit for the network's review: Meta's own
            `message_templates` body plus `from`. Example: {'category': 'UTILITY', 'components':
            [{'example': {'body_text': [['A-1001']]}, 'text': 'Your order {{1}} is ready.', 'type':
            'BODY'}], 'language': 'en_US', 'name': 'order_ready'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TemplateResource]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: TemplateCreateRequest,
) -> Problem | TemplateResource | None:
    """Submit a template for the network's review.

     The body is Meta's own `message_templates` body (`name`, `language`, `category`, `parameter_format`,
    `allow_category_change`, `components`) plus `from`, the sender whose business account gets it
    (default:
    the default sender). Every Meta rule is checked before the network: field errors name the path
    (`components[1].buttons[0].url`). A media header's sample is an upload (`example.media_id`) or the
    network's handle (`example.header_handle`). Answers `201` with Herald's copy, usually `PENDING`; the
    review's outcome arrives as a status change.

    Args:
        body (TemplateCreateRequest): A template to submit for the network's review: Meta's own
            `message_templates` body plus `from`. Example: {'category': 'UTILITY', 'components':
            [{'example': {'body_text': [['A-1001']]}, 'text': 'Your order {{1}} is ready.', 'type':
            'BODY'}], 'language': 'en_US', 'name': 'order_ready'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TemplateResource
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: TemplateCreateRequest,
) -> Response[Problem | TemplateResource]:
    """Submit a template for the network's review.

     The body is Meta's own `message_templates` body (`name`, `language`, `category`, `parameter_format`,
    `allow_category_change`, `components`) plus `from`, the sender whose business account gets it
    (default:
    the default sender). Every Meta rule is checked before the network: field errors name the path
    (`components[1].buttons[0].url`). A media header's sample is an upload (`example.media_id`) or the
    network's handle (`example.header_handle`). Answers `201` with Herald's copy, usually `PENDING`; the
    review's outcome arrives as a status change.

    Args:
        body (TemplateCreateRequest): A template to submit for the network's review: Meta's own
            `message_templates` body plus `from`. Example: {'category': 'UTILITY', 'components':
            [{'example': {'body_text': [['A-1001']]}, 'text': 'Your order {{1}} is ready.', 'type':
            'BODY'}], 'language': 'en_US', 'name': 'order_ready'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TemplateResource]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: TemplateCreateRequest,
) -> Problem | TemplateResource | None:
    """Submit a template for the network's review.

     The body is Meta's own `message_templates` body (`name`, `language`, `category`, `parameter_format`,
    `allow_category_change`, `components`) plus `from`, the sender whose business account gets it
    (default:
    the default sender). Every Meta rule is checked before the network: field errors name the path
    (`components[1].buttons[0].url`). A media header's sample is an upload (`example.media_id`) or the
    network's handle (`example.header_handle`). Answers `201` with Herald's copy, usually `PENDING`; the
    review's outcome arrives as a status change.

    Args:
        body (TemplateCreateRequest): A template to submit for the network's review: Meta's own
            `message_templates` body plus `from`. Example: {'category': 'UTILITY', 'components':
            [{'example': {'body_text': [['A-1001']]}, 'text': 'Your order {{1}} is ready.', 'type':
            'BODY'}], 'language': 'en_US', 'name': 'order_ready'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TemplateResource
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
