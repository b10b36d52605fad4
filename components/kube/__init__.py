"""What is read from the cluster: its credentials, the objects a workload references.
Imports the models and the render's checksum kinds; kube_access alone loads none of them."""
