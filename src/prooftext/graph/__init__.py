"""The code and documentation graph: nodes, edges and the Graph artifact."""
