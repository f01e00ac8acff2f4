"""tabular DNN trainer; task.train_and_evaluate is the component entry point used by the pipeline"""
