"""``machinery.workload_component``: a kind's outputs are the fields of its outputs model."""

from __future__ import annotations

import pytest

from components.connector_component import ConnectorComponent
from components.machinery.component_outputs import ConnectorOutputs, ProxyOutputs
from components.machinery.workload_component import ComponentOutput, WorkloadComponent
from components.proxy_component import ProxyComponent


def test_each_component_outputs_its_models_fields():
    assert ConnectorComponent.OUTPUTS == tuple(ConnectorOutputs.model_fields)
    assert ProxyComponent.OUTPUTS == tuple(ProxyOutputs.model_fields)


def test_a_component_declaring_an_output_its_model_lacks_is_refused_as_it_is_defined():
    with pytest.raises(TypeError, match="are not the fields of ProxyOutputs"):

        class Extra(WorkloadComponent):
            OUTPUTS_MODEL = ProxyOutputs
            endpoint = ComponentOutput()
            api_endpoint = ComponentOutput()
            observed_version = ComponentOutput()
            not_in_the_model = ComponentOutput()

    with pytest.raises(TypeError, match="are not the fields of ConnectorOutputs"):

        class Missing(WorkloadComponent):
            OUTPUTS_MODEL = ConnectorOutputs  # lacks its endpoint
