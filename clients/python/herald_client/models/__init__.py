"""Contains all the data models used in inputs/outputs"""

from .action_parameters_object import ActionParametersObject
from .body_variables_request_type_1 import BodyVariablesRequestType1
from .broadcast_created_resource import BroadcastCreatedResource
from .broadcast_dry_run_resource import BroadcastDryRunResource
from .broadcast_page_resource import BroadcastPageResource
from .broadcast_recipient_request import BroadcastRecipientRequest
from .broadcast_request import BroadcastRequest
from .broadcast_resource import BroadcastResource
from .broadcast_resource_counts import BroadcastResourceCounts
from .button_variables_request import ButtonVariablesRequest
from .category_usage_resource import CategoryUsageResource
from .contact_address_object import ContactAddressObject
from .contact_email_object import ContactEmailObject
from .contact_name_object import ContactNameObject
from .contact_object import ContactObject
from .contact_org_object import ContactOrgObject
from .contact_phone_object import ContactPhoneObject
from .contact_resource import ContactResource
from .contact_url_object import ContactUrlObject
from .contact_window_resource import ContactWindowResource
from .cost_resource import CostResource
from .create_webhook_request import CreateWebhookRequest
from .day_usage_resource import DayUsageResource
from .delivery_attempt_resource import DeliveryAttemptResource
from .delivery_page_resource import DeliveryPageResource
from .delivery_resource import DeliveryResource
from .dry_run_resource import DryRunResource
from .dry_run_window_resource import DryRunWindowResource
from .erasure_resource import ErasureResource
from .event_list_resource import EventListResource
from .event_resource import EventResource
from .expected_pricing_resource import ExpectedPricingResource
from .flow_payload_object import FlowPayloadObject
from .flow_payload_object_data_type_0 import FlowPayloadObjectDataType0
from .full_variables_request import FullVariablesRequest
from .header_file_object import HeaderFileObject
from .header_variables_request import HeaderVariablesRequest
from .health_resource import HealthResource
from .inbound_context_resource import InboundContextResource
from .inbound_page_resource import InboundPageResource
from .inbound_read_request import InboundReadRequest
from .inbound_resource import InboundResource
from .inbound_resource_reaction_type_0 import InboundResourceReactionType0
from .inbound_resource_referral_type_0 import InboundResourceReferralType0
from .inbound_resource_text_type_0 import InboundResourceTextType0
from .interactive_action_object import InteractiveActionObject
from .interactive_header_object import InteractiveHeaderObject
from .interactive_object import InteractiveObject
from .keyword_rule_resource import KeywordRuleResource
from .location_object import LocationObject
from .media_resource import MediaResource
from .media_upload_resource import MediaUploadResource
from .message_error_resource import MessageErrorResource
from .message_page_resource import MessagePageResource
from .message_resource import MessageResource
from .openapi_response_200 import OpenapiResponse200
from .pause_resource import PauseResource
from .pricing_resource import PricingResource
from .problem import Problem
from .problem_field import ProblemField
from .reaction_resource import ReactionResource
from .recover_request import RecoverRequest
from .recover_resource import RecoverResource
from .redeliver_resource import RedeliverResource
from .rejected_row_resource import RejectedRowResource
from .reply_button_object import ReplyButtonObject
from .reply_object import ReplyObject
from .row_object import RowObject
from .section_object import SectionObject
from .send_contacts_request import SendContactsRequest
from .send_file_form import SendFileForm
from .send_file_request import SendFileRequest
from .send_interactive_request import SendInteractiveRequest
from .send_location_request import SendLocationRequest
from .send_reaction_request import SendReactionRequest
from .send_template_media_form import SendTemplateMediaForm
from .send_template_request import SendTemplateRequest
from .send_text_request import SendTextRequest
from .sender_list_resource import SenderListResource
from .sender_resource import SenderResource
from .source_field_name import SourceFieldName
from .template_body_resource import TemplateBodyResource
from .template_button_resource import TemplateButtonResource
from .template_category_request import TemplateCategoryRequest
from .template_component_request import TemplateComponentRequest
from .template_component_request_buttons_type_0_item import TemplateComponentRequestButtonsType0Item
from .template_component_request_cards_type_0_item import TemplateComponentRequestCardsType0Item
from .template_component_request_example_type_0 import TemplateComponentRequestExampleType0
from .template_component_request_limited_time_offer_type_0 import TemplateComponentRequestLimitedTimeOfferType0
from .template_create_request import TemplateCreateRequest
from .template_edit_request import TemplateEditRequest
from .template_header_resource import TemplateHeaderResource
from .template_list_resource import TemplateListResource
from .template_parameter_format_request import TemplateParameterFormatRequest
from .template_ref_request import TemplateRefRequest
from .template_ref_resource import TemplateRefResource
from .template_resource import TemplateResource
from .template_sync_resource import TemplateSyncResource
from .template_variables_request_type_2 import TemplateVariablesRequestType2
from .text_object import TextObject
from .timestamps_resource import TimestampsResource
from .update_webhook_request import UpdateWebhookRequest
from .upload_media_form import UploadMediaForm
from .usage_resource import UsageResource
from .webhook_list_resource import WebhookListResource
from .webhook_resource import WebhookResource
from .webhook_test_resource import WebhookTestResource
from .webhook_with_secret_resource import WebhookWithSecretResource
from .window_resource import WindowResource

__all__ = (
    "ActionParametersObject",
    "BodyVariablesRequestType1",
    "BroadcastCreatedResource",
    "BroadcastDryRunResource",
    "BroadcastPageResource",
    "BroadcastRecipientRequest",
    "BroadcastRequest",
    "BroadcastResource",
    "BroadcastResourceCounts",
    "ButtonVariablesRequest",
    "CategoryUsageResource",
    "ContactAddressObject",
    "ContactEmailObject",
    "ContactNameObject",
    "ContactObject",
    "ContactOrgObject",
    "ContactPhoneObject",
    "ContactResource",
    "ContactUrlObject",
    "ContactWindowResource",
    "CostResource",
    "CreateWebhookRequest",
    "DayUsageResource",
    "DeliveryAttemptResource",
    "DeliveryPageResource",
    "DeliveryResource",
    "DryRunResource",
    "DryRunWindowResource",
    "ErasureResource",
    "EventListResource",
    "EventResource",
    "ExpectedPricingResource",
    "FlowPayloadObject",
    "FlowPayloadObjectDataType0",
    "FullVariablesRequest",
    "HeaderFileObject",
    "HeaderVariablesRequest",
    "HealthResource",
    "InboundContextResource",
    "InboundPageResource",
    "InboundReadRequest",
    "InboundResource",
    "InboundResourceReactionType0",
    "InboundResourceReferralType0",
    "InboundResourceTextType0",
    "InteractiveActionObject",
    "InteractiveHeaderObject",
    "InteractiveObject",
    "KeywordRuleResource",
    "LocationObject",
    "MediaResource",
    "MediaUploadResource",
    "MessageErrorResource",
    "MessagePageResource",
    "MessageResource",
    "OpenapiResponse200",
    "PauseResource",
    "PricingResource",
    "Problem",
    "ProblemField",
    "ReactionResource",
    "RecoverRequest",
    "RecoverResource",
    "RedeliverResource",
    "RejectedRowResource",
    "ReplyButtonObject",
    "ReplyObject",
    "RowObject",
    "SectionObject",
    "SendContactsRequest",
    "SenderListResource",
    "SenderResource",
    "SendFileForm",
    "SendFileRequest",
    "SendInteractiveRequest",
    "SendLocationRequest",
    "SendReactionRequest",
    "SendTemplateMediaForm",
    "SendTemplateRequest",
    "SendTextRequest",
    "SourceFieldName",
    "TemplateBodyResource",
    "TemplateButtonResource",
    "TemplateCategoryRequest",
    "TemplateComponentRequest",
    "TemplateComponentRequestButtonsType0Item",
    "TemplateComponentRequestCardsType0Item",
    "TemplateComponentRequestExampleType0",
    "TemplateComponentRequestLimitedTimeOfferType0",
    "TemplateCreateRequest",
    "TemplateEditRequest",
    "TemplateHeaderResource",
    "TemplateListResource",
    "TemplateParameterFormatRequest",
    "TemplateRefRequest",
    "TemplateRefResource",
    "TemplateResource",
    "TemplateSyncResource",
    "TemplateVariablesRequestType2",
    "TextObject",
    "TimestampsResource",
    "UpdateWebhookRequest",
    "UploadMediaForm",
    "UsageResource",
    "WebhookListResource",
    "WebhookResource",
    "WebhookTestResource",
    "WebhookWithSecretResource",
    "WindowResource",
)
