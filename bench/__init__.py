"""`make bench`: latency and throughput of the integrity operations on DynamoDB Local.

Numbers from a shared 2-core machine are noisy: read the ratios (measured in the same run),
not the absolute milliseconds.
"""
