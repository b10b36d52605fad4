"""What turns validated models into a component's children, outputs and registration.
Imports the models, the renderers, the registration and what is read from the cluster."""
