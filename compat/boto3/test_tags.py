"""Tagging through boto3: TagResource, UntagResource, ListTagsOfResource
on a table's ARN, with DynamoDB's validation messages
(docs/research-tags.md, from live DynamoDB)."""

import unittest

from compat_support import DynamoTestCase


class TagsTest(DynamoTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("tags", Tags=[{"Key": "team", "Value": "core"}])
        cls.arn = cls.client.describe_table(TableName=cls.table)["Table"]["TableArn"]

    def test_tag_list_untag(self):
        c = self.client
        self.assertEqual(c.list_tags_of_resource(ResourceArn=self.arn)["Tags"], [{"Key": "team", "Value": "core"}])
        c.tag_resource(ResourceArn=self.arn, Tags=[{"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "data"}])
        out = c.list_tags_of_resource(ResourceArn=self.arn)
        self.assertEqual(out["Tags"], [{"Key": "team", "Value": "data"}, {"Key": "env", "Value": "dev"}])
        self.assertNotIn("NextToken", out)
        c.untag_resource(ResourceArn=self.arn, TagKeys=["env", "absent"])
        self.assertEqual(c.list_tags_of_resource(ResourceArn=self.arn)["Tags"], [{"Key": "team", "Value": "data"}])

    def test_errors(self):
        c = self.client
        self.expectError("ValidationException", "Duplicate Tag Keys provided as input: Duplicate Tag Key found a",
                         c.tag_resource, ResourceArn=self.arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"}])
        self.expectError("ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn",
                         c.tag_resource, ResourceArn=self.arn, Tags=[{"Key": "k%d" % i, "Value": "v"} for i in range(50)])
        self.expectError("ValidationException", "Invalid resource arn provided, only table or stream is accepted",
                         c.list_tags_of_resource, ResourceArn=self.arn + "/index/gsi")
        self.expectError("ResourceNotFoundException", "Requested resource not found: ResourceArn: %s-nope not found" % self.arn,
                         c.tag_resource, ResourceArn=self.arn + "-nope", Tags=[{"Key": "a", "Value": "b"}])
        # Nothing of a refused request was applied.
        self.assertEqual(len(c.list_tags_of_resource(ResourceArn=self.arn)["Tags"]), 1)


if __name__ == "__main__":
    unittest.main()
